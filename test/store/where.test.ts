/** The one `--where` filter (src/store/where.ts, issue 22 item 3). */
import { describe, expect, it } from "vitest";
import { applyWhere, matchesWhere, parseWhere, restrictRun, typedClauses, WhereTally, whereLine } from "../../src/store/where.js";
import { UsageError } from "../../src/errors.js";

const rows = [
  { id: "a", agent_model: "gpt-4o", suite: "slack", condition: "no_defense", attack: "important_instructions", surface: "tool_output", user_task_id: "user_task_0", injection_task_id: "injection_task_1" },
  { id: "b", agent_model: "gpt-4o", suite: "slack", condition: "tool_filter", attack: "important_instructions", user_task_id: "user_task_1", injection_task_id: "injection_task_1" },
  { id: "c", agent_model: "claude", suite: "banking", condition: "no_defense", user_task_id: "user_task_0" },
];

describe("parseWhere", () => {
  it("FIELD=VALUE[,VALUE], repeatable; aliases; the text given back", () => {
    const f = parseWhere(["attack=important_instructions,(none)", "agent_model=gpt-4o", "user_task_id=user_task_0", "injection-task=injection_task_1"])!;
    expect(f.clauses).toEqual([
      { field: "attack", values: ["important_instructions", "(none)"] },
      { field: "model", values: ["gpt-4o"], name: "agent_model" },
      { field: "user_task", values: ["user_task_0"], name: "user_task_id" },
      { field: "injection_task", values: ["injection_task_1"], name: "injection-task" },
    ]);
    // the fields as typed (new user 49 item 6: `agent_model=X` was given back as `model=X`)
    expect(f.text).toBe("attack=important_instructions,(none) agent_model=gpt-4o user_task_id=user_task_0 injection-task=injection_task_1");
    expect(parseWhere(undefined)).toBeNull();
    expect(parseWhere([])).toBeNull();
    expect(parseWhere("suite=slack")!.clauses).toEqual([{ field: "suite", values: ["slack"] }]);
  });
  it("refuses an unknown field (naming it and the fields), a clause without =, an empty value", () => {
    expect(() => parseWhere(["atack=x"])).toThrow(UsageError);
    expect(() => parseWhere(["atack=x"])).toThrow(
      'unknown field "atack" (fields: model (or agent_model, agent-model), suite, condition (or defense), attack, surface, user_task (or user_task_id, user-task), injection_task (or injection_task_id, injection-task), attacked (true or false))',
    );
    // every alias the listing names is accepted, as its canonical field (new user 19)
    const aliases = parseWhere(["agent_model=m", "defense=d", "agent-model=n"])!;
    expect(aliases.clauses.map((c) => c.field)).toEqual(["model", "condition", "model"]);
    expect(aliases.text).toBe("agent_model=m defense=d agent-model=n");
    expect(() => parseWhere(["attack"])).toThrow(/expected FIELD=VALUE/);
    expect(() => parseWhere(["attack=a,"])).toThrow(/empty value/);
  });
  it("refuses a value that is itself a clause of a known field (two fields in one --where: new user 45)", () => {
    // read as model in {gpt-4o, "attack=important_instructions"}, it kept every attack of gpt-4o
    expect(() => parseWhere(["model=gpt-4o-2024-05-13,attack=important_instructions"])).toThrow(
      new UsageError(
        '--where "model=gpt-4o-2024-05-13,attack=important_instructions": the value "attack=important_instructions" names another field; the values of one --where are alternatives of one field, so give one --where per field (e.g. --where model=gpt-4o-2024-05-13 --where attack=important_instructions)',
      ),
    );
    // aliases and any case count as fields; a value with = that names no field is still a value
    expect(() => parseWhere(["suite=banking,Defense=tool_filter"])).toThrow(/the value "Defense=tool_filter" names another field/);
    expect(() => parseWhere(["attacked=true, suite=banking"])).toThrow(/--where attacked=true --where suite=banking\)/);
    expect(parseWhere(["condition=a=b"])!.clauses).toEqual([{ field: "condition", values: ["a=b"] }]);
  });
  it("takes no field from Object.prototype's names", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(() => parseWhere([`${name}=x`])).toThrow(`unknown field "${name}"`);
      expect(parseWhere([`suite=${name}=x`])!.clauses).toEqual([{ field: "suite", values: [`${name}=x`] }]);
    }
  });
});

describe("matchesWhere / applyWhere / restrictRun", () => {
  it("values of a field are alternatives, clauses must all hold, (none) matches a missing field", () => {
    const f = parseWhere(["attack=important_instructions,(none)", "model=gpt-4o"])!;
    expect(rows.filter((r) => matchesWhere(r, f)).map((r) => r.id)).toEqual(["a", "b"]);
    expect(rows.filter((r) => matchesWhere(r, parseWhere(["attack=(none)"]))).map((r) => r.id)).toEqual(["c"]);
    expect(rows.filter((r) => matchesWhere(r, parseWhere(["surface=tool_output"]))).map((r) => r.id)).toEqual(["a"]);
    expect(matchesWhere(rows[0], null)).toBe(true);
  });
  it("attacked=true|false reads the row's boolean (new user 44: the attacked runs without naming every attack)", () => {
    const flagged = [{ id: "x", attacked: true, attack: "a" }, { id: "y", attacked: false }, { id: "z" }];
    expect(flagged.filter((r) => matchesWhere(r, parseWhere("attacked=true"))).map((r) => r.id)).toEqual(["x"]);
    expect(flagged.filter((r) => matchesWhere(r, parseWhere("attacked=false"))).map((r) => r.id)).toEqual(["y"]);
    expect(flagged.filter((r) => matchesWhere(r, parseWhere("attacked=(none)"))).map((r) => r.id)).toEqual(["z"]);
    // a value that is not a boolean is refused before anything is read (break 46: `attacked=yes` kept nothing, and
    // `label` then judged nothing and exited 0); the case of true and false does not matter (Python's True)
    expect(() => parseWhere("attacked=true,ture")).toThrow(/--where "attacked=true,ture": attacked is true or false \(or \(none\) for runs without the field\), not "ture"/);
    expect(() => parseWhere("attacked=yes")).toThrow(/not "yes"/);
    expect(() => parseWhere("attacked=1")).toThrow(/not "1"/);
    expect(parseWhere("attacked=True,FALSE,true")!.clauses).toEqual([{ field: "attacked", values: ["true", "false"] }]);
    expect(parseWhere("attacked=True")!.text).toBe("attacked=true");
    expect(flagged.filter((r) => matchesWhere(r, parseWhere("attacked=True"))).map((r) => r.id)).toEqual(["x"]);
  });
  it("states what it kept and warns about each value that matched nothing, naming the values that occur", () => {
    const r = applyWhere(rows, parseWhere(["condition=tool_filter,tool_filtre"]));
    expect(r.kept.map((x) => x.id)).toEqual(["b"]);
    expect(r.statement).toEqual({ filter: "condition=tool_filter,tool_filtre", clauses: { condition: ["tool_filter", "tool_filtre"] }, kept: 1, of: 3, unmatched: [{ field: "condition", value: "tool_filtre" }] });
    expect(r.warnings).toEqual(["--where condition=tool_filtre matches none of the 3 trajectories (condition values: no_defense, tool_filter)"]);
    expect(whereLine(r.statement)).toBe("filter --where condition=tool_filter,tool_filtre: 1 of 3 trajectories (matched nothing: condition=tool_filtre)");
  });
  it("every echo gives the field back as typed: agent_model stays agent_model, defense stays defense (new user 49 item 6)", () => {
    const r = applyWhere(rows, parseWhere(["agent_model=gpt-4o", "defense=tool_filter,tool_filtre"]));
    expect(r.kept.map((x) => x.id)).toEqual(["b"]);
    // the clauses keep the canonical field (what reads the records, and what a sample records)
    expect(r.statement!.clauses).toEqual({ model: ["gpt-4o"], condition: ["tool_filter", "tool_filtre"] });
    expect(r.warnings).toEqual(["--where defense=tool_filtre matches none of the 3 trajectories (defense values: no_defense, tool_filter)"]);
    expect(whereLine(r.statement)).toBe("filter --where agent_model=gpt-4o defense=tool_filter,tool_filtre: 1 of 3 trajectories (matched nothing: defense=tool_filtre)");
    expect(() => applyWhere(rows, parseWhere(["agent_model=gpt-5"]))).toThrow("--where agent_model=gpt-5 keeps none of the 3 trajectories: agent_model=gpt-5 matches none (agent_model values: claude, gpt-4o)");
  });
  it("surface is matched exactly, and the runs whose joined surface holds the asked one are said to be left out (break46)", () => {
    const joined = [...rows, { id: "d", surface: "tool_output+tool_description" }, { id: "e", surface: "tool_description+tool_output" }, { id: "f", surface: "tool_description" }];
    const r = applyWhere(joined, parseWhere(["surface=tool_output"]));
    expect(r.kept.map((x) => x.id)).toEqual(["a"]);
    expect(r.warnings).toEqual([
      "--where surface=tool_output is matched exactly: 2 trajectories whose surface joins it with another are left out (tool_description+tool_output 1, tool_output+tool_description 1); list them too to keep them (--where surface=tool_output,tool_description+tool_output,tool_output+tool_description)",
    ]);
    // listed: kept, nothing said
    const all = applyWhere(joined, parseWhere(["surface=tool_output,tool_output+tool_description,tool_description+tool_output"]));
    expect(all.kept.map((x) => x.id)).toEqual(["a", "d", "e"]);
    expect(all.warnings).toEqual([]);
  });
  it("a filter that keeps nothing is refused, naming why", () => {
    // the filter and the count said once, then what each unmatched value found (session 40: it said both twice)
    expect(() => applyWhere(rows, parseWhere(["suite=travel"]), "trajectories of run r")).toThrow(
      new UsageError("--where suite=travel keeps none of the 3 trajectories of run r: suite=travel matches none (suite values: banking, slack)"),
    );
    expect(() => applyWhere(rows, parseWhere(["suite=travel", "condition=x"]), "trajectories of run r")).toThrow(
      /^--where suite=travel condition=x keeps none of the 3 trajectories of run r: suite=travel matches none \(suite values: banking, slack\); condition=x matches none \(condition values: no_defense, tool_filter\)$/,
    );
    // every value occurs, but no row has them together
    expect(() => applyWhere(rows, parseWhere(["suite=banking", "condition=tool_filter"]))).toThrow(/every value occurs, but none of them passes every clause together/);
  });
  it("a value that differs from the run's only by an invisible character is shown with it (break48: suite=banking\u200b 'matched none' beside 'suite values: banking')", () => {
    expect(() => applyWhere(rows, parseWhere(["suite=banking\u200b"]), "trajectories of run r")).toThrow(
      new UsageError("--where suite=banking⟨U+200B⟩ keeps none of the 3 trajectories of run r: suite=banking⟨U+200B⟩ matches none (suite values: banking, slack)"),
    );
    const odd = [...rows, { id: "d", suite: "slack\u2067x" }];
    const r = applyWhere(odd, parseWhere(["suite=banking,bank\u00ading"]));
    expect(r.warnings).toEqual(["--where suite=bank⟨U+00AD⟩ing matches none of the 4 trajectories (suite values: banking, slack, slack⟨U+2067⟩x)"]);
    expect(whereLine(r.statement)).toBe("filter --where suite=banking,bank⟨U+00AD⟩ing: 1 of 4 trajectories (matched nothing: suite=bank⟨U+00AD⟩ing)");
  });
  it("restrictRun keeps the index rows, verdicts and committee verdicts of the kept trajectories; no filter keeps all", () => {
    const index = new Map(rows.map((r) => [r.id, r]));
    const verdicts = [{ trajectory_id: "a" }, { trajectory_id: "b" }, { trajectory_id: "c" }];
    const committee = [{ trajectory_id: "c" }, { trajectory_id: "a" }];
    const r = restrictRun({ index, verdicts, committee }, parseWhere(["model=gpt-4o"]), "r");
    expect([...r.index.keys()]).toEqual(["a", "b"]);
    expect(r.verdicts.map((v) => v.trajectory_id)).toEqual(["a", "b"]);
    expect(r.committee!.map((v) => v.trajectory_id)).toEqual(["a"]);
    expect(r.statement).toMatchObject({ kept: 2, of: 3 });
    const none = restrictRun({ index, verdicts }, null);
    expect(none.index.size).toBe(3);
    expect(none.statement).toBeNull();
    expect(none.committee).toBeUndefined();
  });
  it("WhereTally (label's streaming count) says what applyWhere says", () => {
    const f = parseWhere(["attack=important_instructions,x"])!;
    const t = new WhereTally(f);
    const kept = rows.filter((r) => t.add(r));
    const a = applyWhere(rows, f);
    expect(kept).toEqual(a.kept);
    expect(t.statement()).toMatchObject({ statement: a.statement, warnings: a.warnings });
    expect(t.statement().said).toEqual(["attack=x matches none (attack values: (none), important_instructions)"]);
  });
});

describe("typedClauses: a stored filter's clauses as typed (out50 finding 3)", () => {
  it("reads the names back from the filter text, the values from the canonical clauses; a name the text lacks stays canonical", () => {
    const f = parseWhere(["agent_model=gpt-4o", "attack=important_instructions"])!;
    const s = applyWhere(rows, f).statement!;
    expect(s.clauses).toEqual({ model: ["gpt-4o"], attack: ["important_instructions"] });
    expect(typedClauses(s)).toEqual(["agent_model=gpt-4o", "attack=important_instructions"]);
    expect(typedClauses({ filter: "", clauses: { model: ["m"] } })).toEqual(["model=m"]);
  });
});
