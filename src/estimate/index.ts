/**
 * Estimates a paper can print: calibrated ASR (judge labels on every trajectory corrected by a two-phase human
 * sample) and the per-model table of judge ASR, heuristic ASR, refusal rate and utility.
 */
export * from "./calibrated.js";
export * from "./run.js";
export * from "./format.js";
export * from "./table.js";
