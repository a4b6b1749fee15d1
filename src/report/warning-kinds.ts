/**
 * The kind of each warning of the report, and whether it changes how a figure reads (break 51 #1: a word list sorted
 * `same_file_other_cell`, `same_content`, mixed judge configurations, pooled run folders, compare's "different task
 * sets" and the compliance marks under "Notes", and the headline's "Read with:" left them out).
 *
 * The report's warnings are the strings its producers print (compare, the run's record, the judges' health, the
 * estimate): each kind below names one of them by the mark its text carries. A kind is `reading` when the figures
 * count something twice, mix configurations, conditions, attack mixes or run folders, are not like for like, speak
 * for a subset, or rest on a judge not to be trusted; `note` when it says how a figure was made. A warning of no kind
 * below is `unknown` and counts as `reading` (loud): a new warning is never filed as a note by default.
 * test/report/warning-kinds.test.ts holds a real text of every kind, so each is classified on purpose.
 */
import { isLikeForLikeWarning } from "../stats/like-for-like.js";

/** The two groups of the summary's warning list. */
export type WarningGroup = "reading" | "note";

/** One kind of report warning: its name, its group, and what marks its text. */
export interface WarningKind {
  kind: string;
  group: WarningGroup;
  /** Whether a warning's text is of this kind. */
  test: (w: string) => boolean;
}

const re = (r: RegExp) => (w: string) => r.test(w);

/** The kinds, first match wins: the ones that change how a figure reads before the notes, so a text carrying both marks is loud. */
export const WARNING_KINDS: readonly WarningKind[] = [
  { kind: "run_incomplete", group: "reading", test: re(/^run incomplete: |\bincomplete\b|^run partial: /) },
  // named before "biased", which the drawn_without_label text also says (break52 #2)
  { kind: "drawn_without_label", group: "reading", test: re(/\bdrawn_without_label: /) },
  { kind: "label_design_drift", group: "reading", test: re(/\blabel_design_drift( not checked)?: /) },
  { kind: "same_file_other_cell", group: "reading", test: re(/\bsame_file_other_cell: /) },
  { kind: "same_content", group: "reading", test: re(/\bsame_content: /) },
  { kind: "pooled_run_folders", group: "reading", test: re(/pools runs from several run folders/) },
  { kind: "input_errors", group: "reading", test: re(/\binput_errors: \d+ input item/) },
  { kind: "mixed_configurations", group: "reading", test: re(/made under \d+ different configurations/) },
  { kind: "pooled_conditions", group: "reading", test: re(/pool the conditions \(defenses\)/) },
  { kind: "not_like_for_like", group: "reading", test: (w) => isLikeForLikeWarning(w) || /not like for like|NOT LIKE FOR LIKE|different task sets|mix(es)? different (tasks|suites)/.test(w) },
  { kind: "coverage_low", group: "reading", test: re(/\bcoverage_low\b|coverage [\d.]+% \([\d,]+\/[\d,]+\) LOW|\) LOW\b/) },
  { kind: "exposure_low", group: "reading", test: re(/EXPOSURE LOW|exposure low\b/) },
  { kind: "judge_broken", group: "reading", test: re(/looks broken|is broken|broken judge|\bis stopped\b|cannot label much of its input/) },
  { kind: "compliance_unrelated", group: "reading", test: re(/\bcompliance_unrelated\b/) },
  { kind: "injected_value_in_call", group: "reading", test: re(/\binjected_value_in_call\b/) },
  { kind: "tool_arguments_invalid", group: "reading", test: re(/\btool_arguments_invalid\b/) },
  { kind: "utility_collapse", group: "reading", test: re(/utility fell to under half/) },
  { kind: "not_shown", group: "reading", test: re(/not shown/) },
  { kind: "biased", group: "reading", test: re(/\bbiased\b/) },
  { kind: "stale", group: "reading", test: re(/\bstale\b/) },
  { kind: "strata_not_represented", group: "reading", test: re(/\bstrata_without_labels\b|the human and calibrated estimates do not represent them|no human label speaks for them: the human-only estimate/) },
  { kind: "rates_over_every_cell", group: "note", test: re(/^Rates over every cell: /) },
  { kind: "arbitrary_baseline", group: "note", test: re(/is an arbitrary baseline/) },
  { kind: "established_by_code", group: "note", test: re(/established by code|votes that code established/) },
  { kind: "one_judge_family", group: "note", test: re(/the committee spans \d+ judge famil/) },
  { kind: "no_usable_verdict_count", group: "note", test: re(/have no usable verdict|has no usable verdict/) },
  { kind: "interval_method", group: "note", test: re(/interval is an exact|calibrated interval is an exact bound|exact small-count interval/) },
  { kind: "calibrated_goal_above_behaviour", group: "note", test: re(/\bcalibrated_goal_above_behaviour\b/) },
  { kind: "sample_population", group: "note", test: re(/the human sample's population/) },
  { kind: "none_attacked", group: "note", test: re(/runs, none attacked: (not compared|no row there)/) },
  { kind: "run_note", group: "note", test: re(/^note: /) },
];

/** The kind of a warning's text ({@link WARNING_KINDS}, first match), else `unknown` in group `reading`. */
export function warningKindOf(w: string): { kind: string; group: WarningGroup } {
  const k = WARNING_KINDS.find((x) => x.test(w));
  return k ? { kind: k.kind, group: k.group } : { kind: "unknown", group: "reading" };
}
