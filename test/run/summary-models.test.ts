import { describe, expect, it } from "vitest";
import { summarizeRun } from "../../src/run/summary.js";
import { formatSummary } from "../../src/run/summary-text.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { slimIndexRow, slimVerdict, type TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Bucket, Verdict } from "../../src/types.js";
import { isLikeForLikeWarning } from "../../src/stats/like-for-like.js";

const verdict = (id: string, label: Bucket): Verdict =>
  ({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, status: "ok", label, downgraded: false, usage: { prompt_tokens: 0, completion_tokens: 0 } }) as Verdict;

describe("label summary: the two named rates per agent model (and condition)", () => {
  it("splits the attacked ok verdicts by the index's agent model", () => {
    const index = new Map<string, TrajectoryIndexRow>([
      ["a1", { id: "a1", attacked: true, agent_model: "gpt-4o" } as TrajectoryIndexRow],
      ["a2", { id: "a2", attacked: true, agent_model: "gpt-4o" } as TrajectoryIndexRow],
      ["b1", { id: "b1", attacked: true, agent_model: "llama" } as TrajectoryIndexRow],
      ["u1", { id: "u1", attacked: false, agent_model: "llama" } as TrajectoryIndexRow],
      ["n1", { id: "n1", attacked: true } as TrajectoryIndexRow],
    ]);
    const s = summarizeRun("r", [verdict("a1", "full_compliance"), verdict("a2", "unaffected"), verdict("b1", "partial_compliance"), verdict("u1", "not_exposed"), verdict("n1", "unaffected")], index, []);
    const bm = s.judges[0].by_agent_model;
    // a run without a model is under (none), the name every command gives it (new user 35: "(unknown)" here only)
    expect(Object.keys(bm)).toEqual(["(none)", "gpt-4o", "llama"]);
    // no run records a condition: no condition named, no (model, condition) cell
    expect(bm["gpt-4o"].conditions).toEqual([]);
    expect(s.judges[0].by_model_condition).toEqual([]);
    expect(bm["(none)"].asr_behaviour).toMatchObject({ count: 0, n: 1, rate: 0 });
    expect(bm["gpt-4o"].asr_behaviour).toMatchObject({ count: 1, n: 2, rate: 0.5 });
    expect(bm["gpt-4o"].asr_goal).toMatchObject({ count: 1, n: 2, rate: 0.5 });
    expect(bm.llama.asr_behaviour).toMatchObject({ count: 1, n: 1, rate: 1 });
    expect(bm.llama.asr_goal).toMatchObject({ count: 0, n: 1, rate: 0 });
    const text = formatSummary(s);
    // a table (src/format/rates-table.ts): its header row, then a row per model, asr_goal before asr_behaviour
    expect(text).toContain("  per agent model:\n    (asr_goal = full compliance"); // what the columns hold, above the first table
    expect(text).toMatch(/\n {4} +asr_goal +asr_behaviour +exposure +blocked +coverage\n {4}\(none\)\s+0\.0% \[/);
    expect(text).toMatch(/\n {4}gpt-4o\s+50\.0% \[[^\]]+\] \(1\/2\)\s+50\.0% \[[^\]]+\] \(1\/2\)/);
    expect(text).not.toMatch(/\bASR\b/);
  });

  it("runs without a condition beside runs with one are the condition (none): named in the model's conditions and a cell of their own (new user 35)", () => {
    // 3 gpt-4o runs under no_defense and 2 with no condition (an Inspect log), 1 claude run under no_defense
    const row = (id: string, model: string, condition?: string) => [id, { id, attacked: true, agent_model: model, attack: "ii", suite: "s", ...(condition ? { condition } : {}) } as TrajectoryIndexRow] as const;
    const index = new Map<string, TrajectoryIndexRow>([row("a", "gpt-4o", "no_defense"), row("b", "gpt-4o", "no_defense"), row("c", "gpt-4o", "no_defense"), row("d", "gpt-4o"), row("e", "gpt-4o"), row("f", "claude", "no_defense")]);
    const s = summarizeRun("r", ["a", "b", "c", "d", "e", "f"].map((id) => verdict(id, id === "a" || id === "d" ? "full_compliance" : "unaffected")), index, []);
    const j = s.judges[0];
    expect(j.by_agent_model["gpt-4o"].conditions).toEqual(["(none)", "no_defense"]);
    expect(j.by_agent_model.claude.conditions).toEqual(["no_defense"]);
    // every attacked run is in exactly one (model, condition) cell
    expect(j.by_model_condition.map((x) => [x.agent_model, x.condition, x.asr_goal.count, x.asr_goal.n])).toEqual([
      ["claude", "no_defense", 0, 1],
      ["gpt-4o", "(none)", 1, 2],
      ["gpt-4o", "no_defense", 1, 3],
    ]);
    expect(j.by_model_condition.reduce((a, x) => a + x.attacked, 0)).toBe(6);
    const text = formatSummary(s);
    // the pooled row names both groups, never the one tag [no_defense]
    expect(text).toMatch(/\n {4}gpt-4o\s+40\.0% /);
    expect(text).toContain("\n    gpt-4o: pooled over 2 conditions: (none), no_defense\n");
    // the lines are headed (out50 finding 7)
    expect(text).toContain("\n  conditions under each agent model's row above (a row over several pools them):\n    ");
    // the (model, condition) rows under their model's heading
    expect(text).toMatch(/\n {4}gpt-4o\n {6}\(none\)\s+50\.0%/);
    expect(text).toContain("attack success over the 6 attacked runs, pooled over every agent model and all 2 conditions (repeat 0;");
    expect(text).toContain("the 2 conditions (one rate per model and condition below): (none), no_defense");
    // the models pooled different sets of conditions: said
    expect(s.warnings.some((w) => w.includes("pooled per-model rates are not like for like") && w.includes('"gpt-4o": (none), "no_defense"'))).toBe(true);
  });

  it("a verdict whose trajectory has no index row (a damaged line) is counted under the model the verdict names, slim or not (review)", () => {
    const v = { ...verdict("x1", "full_compliance"), attacked: true, agent_model: "claude" } as Verdict;
    for (const w of [v, slimVerdict(v)]) {
      const pm = summarizeRun("r", [w], new Map(), []).judges[0].by_agent_model.claude;
      expect(pm.asr_goal).toMatchObject({ count: 1, n: 1, rate: 1 });
      expect(pm.asr_behaviour).toMatchObject({ count: 1, n: 1, rate: 1 });
    }
  });

  it("per (model, condition) when the runs hold conditions; the per-model line names the conditions it pools; coverage and blocked attempts", () => {
    const row = (id: string, condition: string) => [id, { id, attacked: true, agent_model: "gpt-4o", condition } as TrajectoryIndexRow] as const;
    const index = new Map<string, TrajectoryIndexRow>([row("a", "no_defense"), row("b", "no_defense"), row("c", "progent"), row("d", "progent"), row("e", "progent")]);
    const blocked = { ...verdict("c", "partial_compliance"), blocked_attempt: true, blocked_call: { message_index: 1, tool_call_index: 0, result_message_index: 2, reason: "error_result", kind: "refused" } } as Verdict;
    const notBlocked = { ...verdict("d", "partial_compliance"), blocked_attempt: false } as Verdict;
    const unverified = { ...verdict("e", "unaffected"), status: "unverified", label: null, error: { kind: "injection_text_unknown", message: "" } } as Verdict;
    const s = summarizeRun("r", [verdict("a", "full_compliance"), verdict("b", "unaffected"), blocked, notBlocked, unverified], index, []);
    const j = s.judges[0];
    expect(j.by_model_condition.map((x) => [x.agent_model, x.condition])).toEqual([["gpt-4o", "no_defense"], ["gpt-4o", "progent"]]);
    const prog = j.by_model_condition[1];
    expect(prog.asr_goal).toMatchObject({ count: 0, n: 2 });
    expect(prog.asr_behaviour).toMatchObject({ count: 2, n: 2, rate: 1 });
    expect(prog).toMatchObject({ blocked_attempts: 1, partial_compliance: 2, attacked: 3, labelled: 2, coverage: 2 / 3, coverage_low: true, coverage_low_reason: "injection_text_unknown" });
    expect(j.by_agent_model["gpt-4o"].conditions).toEqual(["no_defense", "progent"]);
    const text = formatSummary(s);
    expect(prog.blocked_attempts_by).toEqual({ refused: 1, unavailable: 0, failed: 0 });
    // the slim verdicts a store keeps give the same kinds
    const slim = summarizeRun("r", [verdict("a", "full_compliance"), verdict("b", "unaffected"), blocked, notBlocked, unverified].map(slimVerdict), index, []);
    expect(slim.judges[0].by_model_condition[1].blocked_attempts_by).toEqual({ refused: 1, unavailable: 0, failed: 0 });
    // the row: asr_goal, ..., blocked 1 of 2 by kind (refused, unavailable, failed), coverage LOW; the LOW clause in a note
    expect(text).toMatch(/\n {6}progent\s+0\.0% .*\s1 of 2 \(1, 0, 0\)\s+66\.7% \(2\/3\) LOW\n/);
    expect(unwrapText(text)).toContain("gpt-4o | progent: coverage 66.7% (2 labelled of 3 attacked) LOW (");
    expect(text).toContain("(refused, unavailable, failed)");
    expect(text).toMatch(/pooled over 2 conditions: no_defense, progent/);
    // a partial_compliance verdict stored before blocked attempts were recorded: unknown, never 0
    const old = summarizeRun("r", [{ ...verdict("c", "partial_compliance") } as Verdict], new Map([row("c", "progent")]), []);
    expect(old.judges[0].rates.blocked_attempts).toBeNull();
    expect(old.judges[0].rates.blocked_attempts_reason).toMatch(/before blocked attempts were recorded/);
  });

  it("several conditions: the overall rate says it pools them; a model whose conditions ran different attacks is said on stdout at its rows (new user, session 11)", () => {
    const row = (id: string, condition: string, attack: string) => [id, { id, attacked: true, agent_model: "gpt-4o", condition, attack } as TrajectoryIndexRow] as const;
    const index = new Map<string, TrajectoryIndexRow>([row("a", "no_defense", "direct"), row("b", "no_defense", "important_instructions"), row("c", "tool_filter", "important_instructions")]);
    const s = summarizeRun("r", [verdict("a", "full_compliance"), verdict("b", "unaffected"), verdict("c", "unaffected")], index, []);
    const text = formatSummary(s);
    expect(text).toContain("attack success over the 3 attacked runs, pooled over every agent model and all 2 conditions (repeat 0;");
    expect(text).toContain("the 2 conditions (one rate per model and condition below): no_defense, tool_filter");
    // the warning (also in --json's warnings) comes with the rows it concerns, before them
    const block = text.slice(text.indexOf("per agent model and condition"));
    expect(block).toMatch(/^per agent model and condition \(defense\), each row over its own runs \(not paired by cell: estimate --table pairs\):\n    NOT LIKE FOR LIKE: /);
    expect(unwrapText(block)).toMatch(/^per agent model and condition \(defense\), each row over its own runs \(not paired by cell: estimate --table pairs\): NOT LIKE FOR LIKE: "gpt-4o": its conditions ran different attacks \("no_defense": direct, important_instructions; "tool_filter": important_instructions\)/);
    expect(s.warnings.filter(isLikeForLikeWarning)).toHaveLength(1);
    expect(unwrapText(text)).toMatch(/gpt-4o: pooled over 2 conditions: no_defense, tool_filter; they ran different attacks: not like for like, see above/);
    // one condition: the line is as before
    const one = summarizeRun("r", [verdict("a", "full_compliance")], new Map([row("a", "no_defense", "direct")]), []);
    expect(formatSummary(one)).toContain("attack success over the 1 attacked runs (repeat 0;");
    expect(formatSummary(one)).not.toContain("NOT LIKE FOR LIKE");
  });

  it("the pooled line names what the conditions differ in: suites only, attacks only, or both (new user 19: 'different attacks' said of conditions that ran one attack on different suites)", () => {
    const row = (id: string, condition: string, attack: string, suite: string) => [id, slimIndexRow({ id, attacked: true, agent_model: "m", condition, attack, suite, n_messages: 1, content_sha256: "h" } as TrajectoryIndexRow)] as const;
    const pooledLine = (rows: Array<ReturnType<typeof row>>) => {
      const text = formatSummary(summarizeRun("r", rows.map(([id]) => verdict(id, "unaffected")), new Map(rows), []));
      // the model's note under the table, with its continuation lines (deeper indented) joined back
      const lines = text.split("\n");
      const at = lines.findIndex((l) => l.includes("m: pooled over 2 conditions"));
      let end = at + 1;
      while (end < lines.length && lines[end].startsWith("        ")) end++;
      return unwrapText(lines.slice(at, end).join("\n"));
    };
    const suites = pooledLine([row("a", "no_defense", "ii", "banking"), row("b", "no_defense", "ii", "slack"), row("c", "repeat", "ii", "banking")]);
    expect(suites).toMatch(/; they ran different suites: not like for like, see above$/);
    expect(suites).not.toContain("attacks");
    const attacks = pooledLine([row("a", "no_defense", "ii", "banking"), row("b", "no_defense", "direct", "banking"), row("c", "repeat", "ii", "banking")]);
    expect(attacks).toMatch(/; they ran different attacks: not like for like, see above$/);
    const both = pooledLine([row("a", "no_defense", "ii", "banking"), row("b", "no_defense", "direct", "slack"), row("c", "repeat", "ii", "banking")]);
    expect(both).toMatch(/; they ran different attacks and different suites: not like for like, see above$/);
    expect(pooledLine([row("a", "no_defense", "ii", "banking"), row("c", "repeat", "ii", "banking")])).toMatch(/: pooled over 2 conditions: no_defense, repeat$/);
  });

  it("one condition, models over different attacks or suites: the per-model lines come after NOT LIKE FOR LIKE (stdout as --json); the slim rows keep the suite (like13)", () => {
    const row = (id: string, agent_model: string, suite: string) => [id, slimIndexRow({ id, attacked: true, agent_model, condition: "no_defense", attack: "ii", suite, n_messages: 1, content_sha256: "h" } as TrajectoryIndexRow)] as const;
    const index = new Map<string, TrajectoryIndexRow>([row("a", "gpt-4o", "workspace"), row("b", "gpt-4o", "slack"), row("c", "llama", "banking")]);
    const s = summarizeRun("r", [verdict("a", "full_compliance"), verdict("b", "unaffected"), verdict("c", "unaffected")], index, []);
    expect(s.warnings).toEqual([expect.stringMatching(/^agent models ran different suites \("gpt-4o": slack, workspace; "llama": banking\), so their per-model rates are not like for like/)]);
    const text = unwrapText(formatSummary(s)); // the warning's continuation lines joined back, the table's header after it
    expect(text).toContain(`per agent model: NOT LIKE FOR LIKE: ${s.warnings[0]} (asr_goal = full compliance`);
    expect(text).toMatch(/ gpt-4o +50\.0%/);
  });

  it("two judges: the NOT LIKE FOR LIKE warning in full under the first judge's rows, pointed to under the second's (session 39)", () => {
    const row = (id: string, agent_model: string, suite: string) => [id, slimIndexRow({ id, attacked: true, agent_model, condition: "no_defense", attack: "ii", suite, n_messages: 1, content_sha256: "h" } as TrajectoryIndexRow)] as const;
    const index = new Map<string, TrajectoryIndexRow>([row("a", "gpt-4o", "workspace"), row("b", "gpt-4o", "slack"), row("c", "llama", "banking")]);
    const two = (id: string, label: Bucket) => [verdict(id, label), { ...verdict(id, label), judge_id: "k" } as Verdict];
    const s = summarizeRun("r", [...two("a", "full_compliance"), ...two("b", "unaffected"), ...two("c", "unaffected")], index, []);
    expect(s.judges.map((j) => j.judge_id)).toEqual(["j", "k"]);
    const text = unwrapText(formatSummary(s)); // the warning's continuation lines joined back
    expect(text.split(s.warnings[0]).length - 1).toBe(1);
    expect(text).toContain(`per agent model: NOT LIKE FOR LIKE: ${s.warnings[0]} (asr_goal = full compliance`);
    expect(text).toMatch(/per agent model: NOT LIKE FOR LIKE: as under judge "j" above asr_goal +asr_behaviour/);
  });

  it("cached tokens no provider reported are unknown, not '0 cached' (review)", () => {
    const index = new Map<string, TrajectoryIndexRow>([["a1", { id: "a1", attacked: true, agent_model: "m" } as TrajectoryIndexRow]]);
    const withUsage = (u: Verdict["usage"]) => ({ ...verdict("a1", "unaffected"), usage: u }) as Verdict;
    const none = summarizeRun("r", [withUsage({ prompt_tokens: 1000, completion_tokens: 50 })], index, []);
    expect(none.judges[0].usage).toMatchObject({ cached_tokens: 0, verdicts_without_cached_figure: 1 });
    expect(formatSummary(none)).toMatch(/1000 prompt \(cached: not reported by the provider\)/);
    const some = summarizeRun("r", [withUsage({ prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 0 })], index, []);
    expect(formatSummary(some)).toMatch(/1000 prompt \(0 cached\)/);
  });
});

describe("label summary: the unverified hint fits the run (review, session 15)", () => {
  const unverified = (id: string) => ({ ...verdict(id, "unaffected"), status: "unverified", label: null, error: { kind: "injection_text_unknown", message: "m" } }) as unknown as Verdict;
  const row = (id: string, condition: string) => ({ id, attacked: true, agent_model: "m", condition }) as TrajectoryIndexRow;
  it("no defended run (VIGIL): no 'without the defense' remedy; a defended run keeps it", () => {
    const plain = formatSummary(summarizeRun("r", [unverified("a"), verdict("b", "full_compliance")], new Map([["a", row("a", "no_defense")], ["b", row("b", "no_defense")]]), []));
    expect(plain).toMatch(/not labelled, by reason: injection_text_unknown 1 /);
    expect(plain).not.toMatch(/without the defense/);
    expect(unwrapText(plain)).toMatch(/label them in the same invocation as runs of the same suite, user task, injection task, attack and agent model that record the text, if the input has any/);
    const defended = formatSummary(summarizeRun("r", [unverified("a"), verdict("b", "full_compliance")], new Map([["a", row("a", "tool_filter")], ["b", row("b", "no_defense")]]), []));
    expect(unwrapText(defended)).toMatch(/label the same runs without the defense in the same invocation/);
  });
});
