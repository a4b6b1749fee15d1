// src/committee/: judge committees: majority vote with quorum, the committee report (agreement between judges),
// self-family leniency and test-retest reliability across repeats.
/**
 * Committee aggregation (`committeeVote`, `buildCommittee`), the committee report (`committeeReport`),
 * self-family leniency (`selfFamilyLeniency`, `agentFamily`; its like-with-like adjusted gap `adjustedLeniency`) and
 * test-retest (`testRetest`).
 */
export * from "../verdict/vote.js";
export * from "./report.js";
export * from "./leniency.js";
export { LENIENCY_STRATA, adjustedLeniency, type AdjustedLeniency, type LeniencyStratum, type LeniencyStratumRow } from "./leniency-strata.js";
export * from "./retest.js";
export { BINARY, binaryOf, type Binary } from "../rubric/buckets.js";
