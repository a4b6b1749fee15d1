import { describe, expect, it } from "vitest";
import { utilityLikeForLikeWarnings as check } from "../../src/stats/utility-like-for-like.js";
import { runKind } from "../../src/ingest/attacked.js";
import { interactionFlagText } from "../../src/compare/logistic.js";
import { isLikeForLikeWarning, MODEL_MIX_MARK, UNDER_ATTACK_MIX_MARKS } from "../../src/stats/like-for-like.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const utilityLikeForLikeWarnings = (rows: TrajectoryIndexRow[], shown: string[] = []) =>
  check(rows.map((r) => ({ model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id, kind: runKind(r), has_utility: typeof r.reference?.utility === "boolean" })), shown);

// review 14: estimate --table put claude's utility over workspace only beside gpt-4o's over four suites, and Llama's
// utility over four suites beside its rates over three, with no warning.
let n = 0;
const row = (agent_model: string, suite: string, u: string, attacked: boolean, utility: boolean | null = true): TrajectoryIndexRow =>
  ({
    id: `t${n++}`, agent_model, condition: "repeat_user_prompt", suite, user_task_id: u, attacked,
    ...(attacked ? { attack: "ii", injection_task_id: "injection_task_0" } : {}),
    ...(utility === null ? {} : { reference: { utility } }),
    content_sha256: `h${n}`, source: { format: "t", path: "p" }, n_messages: 2,
  }) as TrajectoryIndexRow;

describe("utilityLikeForLikeWarnings: each utility column over its own runs (review 14)", () => {
  it("models whose utility without attack is over different suites: said, prefixed with the column", () => {
    const w = utilityLikeForLikeWarnings([row("claude", "workspace", "user_task_0", false), row("gpt", "workspace", "user_task_0", false), row("gpt", "slack", "user_task_0", false)]);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^utility without attack: agent models ran different suites \("claude": workspace; "gpt": slack, workspace\), so their per-model utility figures \(over unattacked runs\) are not like for like/);
    expect(isLikeForLikeWarning(w[0])).toBe(true);
  });
  it("models whose unattacked runs differ in user tasks on one suite: the cells named as unattacked runs have them, (suite, user task) (session 50)", () => {
    const w = utilityLikeForLikeWarnings([row("a", "banking", "user_task_0", false), row("a", "banking", "user_task_1", false), row("b", "banking", "user_task_0", false)]);
    expect(w).toEqual(["utility without attack: agent models ran different (suite, user task) cells (\"a\" 2, \"b\" 1; 1 shared by all), so their per-model utility figures (over unattacked runs) are not like for like; compare --common-tasks compares them on the tasks every model ran"]);
    expect(w[0]).not.toMatch(/injection task|attack\) cells|rates/);
    expect(isLikeForLikeWarning(w[0])).toBe(true);
  });
  it("a row's utility over a suite its rates never ran: said with the counts and the suites of both", () => {
    const w = utilityLikeForLikeWarnings([row("llama", "banking", "user_task_0", true), row("llama", "banking", "user_task_0", false), row("llama", "slack", "user_task_1", false), row("llama", "slack", "user_task_2", false)]);
    expect(w).toEqual([
      "utility without attack: llama | repeat_user_prompt: its utility is over suites banking 1, slack 2 (runs) while its attack-success rates are over banking (slack only in the utility), so the two are not like for like; narrow with --where suite=banking (the suites of both)",
    ]);
  });
  it("under attack: a warning the rates already gave is not repeated; runs without a utility verdict and injection-task runs are not counted", () => {
    const rows = [row("a", "banking", "user_task_0", true), row("b", "slack", "user_task_0", true), row("a", "slack", "user_task_0", false, null), row("b", "banking", "injection_task_1", false)];
    const w = utilityLikeForLikeWarnings(rows);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^utility under attack: agent models ran different suites \("a": banking; "b": slack\)/);
    // its words are the column's, not the rates' (fix50b); the rates' own warning (same runs) is what dedups it
    expect(w[0]).toContain(UNDER_ATTACK_MIX_MARKS.model);
    expect(w[0]).not.toContain(MODEL_MIX_MARK);
    expect(isLikeForLikeWarning(w[0])).toBe(true);
    const rates = w[0].slice("utility under attack: ".length).replace(UNDER_ATTACK_MIX_MARKS.model, MODEL_MIX_MARK).replace("their utility figures measure", "their rates measure");
    expect(utilityLikeForLikeWarnings(rows, [rates])).toEqual([]);
  });
  it("the same suites and tasks: nothing said", () => {
    expect(utilityLikeForLikeWarnings([row("a", "banking", "user_task_0", true), row("b", "banking", "user_task_0", true), row("a", "banking", "user_task_0", false), row("b", "banking", "user_task_0", false)])).toEqual([]);
  });
});

describe("interaction-test flags say what they mean (review 14)", () => {
  it("fitted_probabilities_0_or_1 is quasi-separation, the p-value may be unreliable; an unknown code as is", () => {
    expect(interactionFlagText("fitted_probabilities_0_or_1")).toBe("fitted_probabilities_0_or_1 (quasi-separation: some fitted probabilities are 0 or 1, so the p-value may be unreliable)");
    expect(interactionFlagText("other")).toBe("other");
  });
});

// newuser16 finding 7: compare said gpt-4o "ran" 359 cells under a condition where it ran 360 (one run without a
// benchmark utility verdict), and advised the very command that printed it.
describe("utilityLikeForLikeWarnings: a difference made only by runs without a verdict (newuser16)", () => {
  it("says the runs were like for like, names the runs lacking a verdict, and suggests no command", () => {
    const rows = [
      row("a", "banking", "user_task_0", true), row("a", "banking", "user_task_1", true),
      row("b", "banking", "user_task_0", true), row("b", "banking", "user_task_1", true, null),
    ];
    const w = utilityLikeForLikeWarnings(rows);
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^utility under attack: agent models have a benchmark utility verdict on different \(suite, user task, injection task, attack\) cells \("a" 2, "b" 1; 1 shared by all\)/);
    expect(w[0]).toContain("the runs were like for like, but some have no benchmark utility verdict (b | repeat_user_prompt 1), so this column leaves them out; no filter restores them");
    expect(w[0]).not.toMatch(/ ran different|compare --/);
  });
});

// issue 26: compare and estimate --table hand the check a generator over a million runs, not a list of items
describe("utilityLikeForLikeWarnings: runs read once, one at a time (issue 26)", () => {
  it("a one-pass generator gives the warnings of the list, each run read once", () => {
    const rows = [
      row("a", "banking", "user_task_0", true), row("a", "banking", "user_task_1", true),
      row("b", "banking", "user_task_0", true), row("b", "banking", "user_task_1", true, null),
      row("a", "workspace", "user_task_0", false), row("b", "slack", "user_task_0", false),
    ];
    const expected = utilityLikeForLikeWarnings(rows);
    expect(expected.length).toBeGreaterThanOrEqual(2); // both columns and the verdict-lacking case: every branch read
    let reads = 0;
    const once = function* () {
      for (const r of rows) {
        reads++;
        yield { model: r.agent_model, condition: r.condition, attack: r.attack, suite: r.suite, user_task_id: r.user_task_id, injection_task_id: r.injection_task_id, kind: runKind(r), has_utility: typeof r.reference?.utility === "boolean" };
      }
    };
    expect(check(once())).toEqual(expected);
    expect(reads).toBe(rows.length);
  });
});
