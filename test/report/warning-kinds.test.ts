import { describe, expect, it } from "vitest";
import { WARNING_KINDS, warningKindOf } from "../../src/report/warning-kinds.js";
import { groupedWarnings } from "../../src/report/warning-groups.js";

/**
 * One real text of every kind (from `report --json` on the corpora and break 51's cases, trimmed after the mark),
 * so each kind is classified on purpose: a kind added to WARNING_KINDS without a text here fails.
 */
const EXAMPLES: Record<string, string> = {
  run_incomplete: "run incomplete: 100 of 516 trajectories have verdicts",
  same_file_other_cell:
    "/tmp/x/labels/sfoc: same_file_other_cell: 206 input files are byte-identical copies of another input file under another id in another cell (agent model, condition, attack, suite or tasks), each counted as a run of its own cell in every figure of this run",
  same_content:
    "/tmp/x/labels/chat: same_content: 53 trajectories are counted more than once in every figure of this run (68 hold the content of another one of the same agent model, condition, attack, suite and tasks under another id, in 15 groups)",
  pooled_run_folders:
    'agent model "qwen3-max", condition "no_defense": the run pools runs from several run folders (runs per folder, attacked or not: "runs_base" 351, "debug_run" 55): their model and condition are the same (only the folder differs), so every figure of this model and condition pools them',
  input_errors:
    "input_errors: 6 input items of this run could not be read (invalid_json 6), as errors.jsonl stood at the last label run (an error of an earlier pass stays until its file is read again without one), and are in no figure: every rate is over the trajectories that were read",
  mixed_configurations:
    'judge "stubB": its verdicts in use were made under 2 different configurations (164 under configuration 8191d15906d5, 82 under configuration 59a04e94c952): its figures mix old- and new-configuration verdicts',
  pooled_conditions:
    "compare --by attack --all-cells: each model's rates by attack pool the conditions (defenses) it ran under: gpt-4o-2024-05-13 2 (no_defense, tool_filter); compare one defense at a time with --where condition=<name>",
  not_like_for_like:
    'compare --by attack --all-cells: the agent models were run on different task sets ("claude-3-5-sonnet-20240620" 69, "gemini-1.5-pro-001" 75 tasks; 0 shared): each model\'s rates are over its own tasks, so model against model (and any rate pooled over models) mixes different tasks; --common-tasks compares them on the shared ones only',
  coverage_low:
    "compare --by attack --all-cells: qwen3-max under sop_exfiltration: coverage 0.0% (0 labelled of 66 attacked) LOW (below 80%: the rates speak for a subset that may be biased; most unlabelled: injection_text_unknown 66): its asr_goal and asr_behaviour are flagged coverage_low",
  exposure_low:
    "compare --by condition --all-cells: google_gemini-2.5-flash under tool_filter: exposure low: 360 of 360 labelled attacked runs are not_exposed (fewer than 10% met the injected text)",
  judge_broken: 'judge "signature" is stopped (no_usable_verdict): its rates are not its judging (see its health: ipi-judge agree or report)',
  compliance_unrelated:
    'judge "signature": 48 of its 961 compliance labels (32 full_compliance) cite only agent actions that share no word or value with the injected text (verdicts marked compliance_unrelated): the quotes are real and the agent\'s, but nothing ties the action to the injected goal, so its rates may count the user\'s own task as success',
  injected_value_in_call:
    'judge "scripted": 166 of its 373 labels below compliance on attacked runs sit beside an agent tool call carrying an IBAN, e-mail address or link the injection named and the user\'s and system\'s messages do not (verdicts marked injected_value_in_call): the agent may have done the injected goal, or the judge may have been talked out of it by the injection, so its rates may count an attack success as resisted',
  tool_arguments_invalid:
    'judge "signature": 6 of its 12 compliance labels (0 full_compliance) are on trajectories with a tool call whose arguments are not valid JSON (verdicts marked tool_arguments_invalid): no tool could have parsed such a call as written, so these successes may count actions that never ran',
  utility_collapse:
    "compare --by condition --all-cells: utility fell to under half the baseline's (95% Wilson intervals apart): gpt-4o-2024-05-13 under transformers_pi_detector under attack 21.1% against 67.2% under repeat_user_prompt",
  not_shown: "calibrated estimate not shown: the label file holds no labelled trajectory of this run",
  biased: "estimate asr_goal, m / c: the labelled subset may be biased",
  stale: "the run's verdicts of judge j1 are stale: its prompt changed",
  strata_not_represented:
    "the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover 396 of the 414 trajectories of the run: the other 18 are in cells with no labelled item: no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them",
  // the whole text: it says "biased" too, which filed it as the kind `biased` (break52 #2)
  drawn_without_label:
    "drawn_without_label: 10 of the 60 items drawn in the sample of label file /tmp/x/s1/human4.jsonl (16.7%) have no label: the human and calibrated estimates treat them as missing at random within their strata (the labelled items of a stratum stand for them); if annotators skipped items for a reason (hard, or judged one way), those estimates are biased: label them and import again",
  label_design_drift:
    'label_design_drift: label file /tmp/x/s1/human4.jsonl puts 2 items on another trajectory (or another version of it) than the sample manifest its rows name (item 2c2c8d-001: trajectory_id "gpt-4o-2024-05-13/travel/user_task_15/tool_knowledge/injection_task_0" here, "gpt-4o-2024-05-13/travel/user_task_9/important_instructions/injection_task_2" in the manifest)',
  rates_over_every_cell:
    "Rates over every cell: this report's rates by attack (the charts by attack) are over every attacked trajectory, as compare --by attack --all-cells prints them",
  arbitrary_baseline:
    "compare --by attack --all-cells: the default baseline rule (the attack observed for the most models) is tied: 3 attacks observed for 1 model each; broken by the most labelled attacked trajectories, so important_instructions is an arbitrary baseline: every underestimate below is relative to it",
  established_by_code:
    'judge "stubA": 45 of its 66 attacked labels (68.2%) were established by code, not by its verified evidence (no finding held); committee agreement (kappa, Fleiss, alpha) on those labels measures the code, not the judge',
  one_judge_family: "the committee spans 1 judge family (openai): a judge may favour agents of its own maker; add a judge of another family",
  no_usable_verdict_count: "estimate asr_behaviour, (all): 3 of 9 trajectories have no usable verdict",
  interval_method:
    "estimate asr_goal, gpt-4o-2024-05-13 / no_defense: within each stratum, the labelled items of the group have the same human-minus-judge difference (SE 0): the calibrated interval is an exact bound: 0 human-judge disagreements among the group's 14 labelled items",
  calibrated_goal_above_behaviour:
    "estimate asr_goal, (all): calibrated_goal_above_behaviour: the calibrated asr_goal 61.5% is above the calibrated asr_behaviour 59.4%",
  sample_population:
    "utility (without attack) reads undefined on 4 of the 4 rows because the human sample's population (--where attacked=true) leaves out the run's 96 unattacked runs",
  none_attacked:
    "compare --by condition --all-cells: agent model claude-3-sonnet-20240229: 80 runs, none attacked: not compared (compare sets attack figures side by side)",
  run_note: "note: the run was labelled with --repeats 3",
};

describe("warning kinds (break 51 #1)", () => {
  it("every kind has a real text here, classified as that kind", () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(WARNING_KINDS.map((k) => k.kind).sort());
    for (const [kind, w] of Object.entries(EXAMPLES)) expect(warningKindOf(w).kind, w).toBe(kind);
  });

  it("counting twice, pooling, mixing configurations and not like for like change how a figure reads", () => {
    for (const k of ["input_errors", "same_file_other_cell", "same_content", "pooled_run_folders", "mixed_configurations", "pooled_conditions", "not_like_for_like", "compliance_unrelated", "injected_value_in_call", "tool_arguments_invalid"])
      expect(warningKindOf(EXAMPLES[k]).group, k).toBe("reading");
  });

  it("a warning of no known kind is loud: unknown, in the group that changes how a figure reads", () => {
    expect(warningKindOf("a brand-new warning nobody classified")).toEqual({ kind: "unknown", group: "reading" });
    const g = groupedWarnings(["a brand-new warning nobody classified", EXAMPLES.one_judge_family]);
    expect(g.reading).toEqual(["a brand-new warning nobody classified"]);
    expect(g.notes).toEqual([EXAMPLES.one_judge_family]);
  });
});
