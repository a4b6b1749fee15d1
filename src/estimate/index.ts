// src/estimate/: estimates a paper prints: calibrated ASR from the two-phase human sample and the per-model table
// (judge ASR, heuristic ASR, refusals, utility) as text, CSV and LaTeX.
/**
 * Estimates a paper can print: calibrated ASR (judge labels on every trajectory corrected by a two-phase human
 * sample) and the per-model table of judge ASR, heuristic ASR, refusal rate and utility.
 */
export * from "./calibrated.js";
export * from "./run.js";
export * from "./format.js";
export * from "./table.js";
export * from "./table-latex.js";
