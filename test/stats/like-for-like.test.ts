import { describe, expect, it } from "vitest";
import { ATTACK_MIX_MARK, conditionMixKindOf, isLikeForLikeWarning, LikeForLikeGroups, likeForLikeWarnings, MODEL_MIX_MARK, MODEL_SPELLING_MARK, POOLED_MIX_MARK, pooledConditionWarnings, spellingDifferences } from "../../src/stats/like-for-like.js";

describe("likeForLikeWarnings: per-(model, condition) rows over different attacks are said", () => {
  it("warns per model whose conditions ran different attack sets, naming them and the shared attacks", () => {
    const items = [
      ...["a", "b", "c"].map((attack) => ({ model: "m", condition: "base", attack })),
      { model: "m", condition: "def", attack: "a" },
      { model: "n", condition: "base", attack: "a" },
      { model: "n", condition: "def", attack: "a" },
      { model: "o", condition: "base", attack: "x" },
      { model: "o", condition: "def", attack: "y" },
      { model: "p", condition: "base", attack: "a" },
    ];
    const w = likeForLikeWarnings(items).filter((x) => x.includes(ATTACK_MIX_MARK));
    expect(w).toHaveLength(2);
    expect(w[0]).toBe(
      "\"m\": its conditions ran different attacks (\"base\": a, b, c; \"def\": a), so its per-condition rates are not like for like; narrow with --where attack=a to remove the attack difference only (their tasks are not compared here, so their (suite, user task, injection task, attack) cells may still differ after it: label's summary keeps no task ids, and other inputs may have none; estimate --table and report compare the cells where the ids are recorded), or compare --by condition (common cells)",
    );
    expect(w[1]).toMatch(/^"o": .*\("base": x; "def": y\).*they share no attack/);
    expect(likeForLikeWarnings([{ model: "m", condition: "base" }, { model: "m", condition: "def" }])).toEqual([]);
  });
  it("with task ids, the same attacks over different (suite, user task, injection task) cells are warned about too", () => {
    const cell = (condition: string, suite: string, u: string) => ({ model: "m", condition, attack: "a", suite, user_task_id: u, injection_task_id: "i" });
    expect(likeForLikeWarnings([cell("base", "s1", "u1"), cell("base", "s1", "u2"), cell("def", "s1", "u1"), cell("def", "s1", "u2")])).toEqual([]);
    // (another suite is said as suites, below)
    expect(likeForLikeWarnings([cell("base", "s1", "u1"), cell("def", "s1", "u2")])).toEqual([
      "\"m\": its conditions ran different (suite, user task, injection task, attack) cells (\"base\" 1, \"def\" 1; 0 shared by all), so its per-condition rates are not like for like; compare --by condition compares them on the shared cells",
    ]);
    // one extra cell in one condition is a difference, said
    expect(likeForLikeWarnings([cell("base", "s1", "u1"), cell("base", "s1", "u2"), cell("def", "s1", "u1")])[0]).toMatch(/"base" 2, "def" 1; 1 shared by all/);
  });
});

describe("likeForLikeWarnings: the warning names every way the groups differ (new user 19)", () => {
  const it2 = (condition: string, attack: string, suite: string) => ({ model: "m", condition, attack, suite });
  it("suites only, attacks only, both: each said, and conditionMixKindOf reads it back", () => {
    const suites = likeForLikeWarnings([it2("a", "ii", "banking"), it2("a", "ii", "slack"), it2("b", "ii", "banking")]);
    expect(suites).toEqual([expect.stringMatching(/^"m": its conditions ran different suites \("a": banking, slack; "b": banking\)/)]);
    expect(conditionMixKindOf(suites, "m")).toBe("different suites");
    const attacks = likeForLikeWarnings([it2("a", "ii", "banking"), it2("a", "direct", "banking"), it2("b", "ii", "banking")]);
    expect(attacks).toEqual([expect.stringMatching(/^"m": its conditions ran different attacks \("a": direct, ii; "b": ii\)/)]);
    expect(conditionMixKindOf(attacks, "m")).toBe("different attacks");
    const both = likeForLikeWarnings([it2("a", "ii", "banking"), it2("a", "direct", "slack"), it2("b", "ii", "banking")]);
    expect(both).toEqual([
      '"m": its conditions ran different attacks and different suites (attacks "a": direct, ii; "b": ii; suites "a": banking, slack; "b": banking), so its per-condition rates are not like for like; ' +
        "narrow with --where attack=ii to remove the attack difference only (their tasks are not compared here, so their (suite, user task, injection task, attack) cells may still differ after it: label's summary keeps no task ids, and other inputs may have none; estimate --table and report compare the cells where the ids are recorded), or compare --by condition (common cells); " +
        "the suites differ too: add --where suite=banking",
    ]);
    expect(conditionMixKindOf(both, "m")).toBe("different attacks and different suites");
    // models under one condition: the same words
    const models = likeForLikeWarnings([{ model: "x", condition: "c", attack: "ii", suite: "s1" }, { model: "y", condition: "c", attack: "d", suite: "s2" }]);
    expect(models[0]).toMatch(/^agent models ran different attacks and different suites \(attacks "x": ii; "y": d; suites "x": s1; "y": s2\).*they share no attack.*; they share no suite/);
    expect(conditionMixKindOf(both, "n")).toBeNull();
    expect(conditionMixKindOf(models, "x")).toBeNull();
    // newuser54 #5: no suite common to all, but some pairs share one: said, not "they share no suite"
    const three = likeForLikeWarnings([
      { model: "x", condition: "c", attack: "ii", suite: "travel" },
      { model: "y", condition: "c", attack: "ii", suite: "slack" },
      { model: "z", condition: "c", attack: "ii", suite: "travel" },
      { model: "z", condition: "c", attack: "ii", suite: "slack" },
    ]);
    expect(three[0]).toMatch(/; no suite is common to all of them \(some share one: "x" and "z": travel; "y" and "z": slack\): their rates measure different tasks$/);
    expect(three[0]).not.toMatch(/they share no suite/);
  });
  it("a model name holding the words of another kind does not change what is read", () => {
    const w = likeForLikeWarnings([{ model: "m different attacks (", condition: "a", attack: "ii", suite: "s1" }, { model: "m different attacks (", condition: "b", attack: "ii", suite: "s2" }]);
    expect(conditionMixKindOf(w, "m different attacks (")).toBe("different suites");
  });
});

describe("likeForLikeWarnings: different models side by side (like13)", () => {
  it("models under one condition over different attacks: one warning naming each model's attacks and the shared ones (agentdojo-scale: gpt-4o 15 attacks, Claude 1)", () => {
    const items = [
      ...["direct", "important_instructions", "tool_knowledge"].map((attack) => ({ model: "gpt-4o", condition: "no_defense", attack })),
      { model: "claude", condition: "no_defense", attack: "important_instructions" },
    ];
    expect(likeForLikeWarnings(items)).toEqual([
      'agent models ran different attacks ("claude": important_instructions; "gpt-4o": direct, important_instructions, tool_knowledge), so their per-model rates are not like for like; ' +
        "narrow with --where attack=important_instructions to remove the attack difference only (their tasks are not compared here, so their (suite, user task, injection task, attack) cells may still differ after it: label's summary keeps no task ids, and other inputs may have none; estimate --table and report compare the cells where the ids are recorded), or compare --common-tasks (the tasks every model ran)",
    ]);
    expect(likeForLikeWarnings(items).every(isLikeForLikeWarning)).toBe(true);
  });
  it("the same attacks on different suites: a model on workspace+slack beside one on banking only is said, the condition named when there are several", () => {
    const items = [
      { model: "a", condition: "tool_filter", attack: "ii", suite: "workspace" },
      { model: "a", condition: "tool_filter", attack: "ii", suite: "slack" },
      { model: "b", condition: "tool_filter", attack: "ii", suite: "banking" },
      { model: "a", condition: "no_defense", attack: "ii", suite: "workspace" },
      { model: "b", condition: "no_defense", attack: "ii", suite: "workspace" },
    ];
    const w = likeForLikeWarnings(items).filter((x) => x.includes(MODEL_MIX_MARK));
    expect(w).toEqual([
      "agent models under condition \"tool_filter\" ran different suites (\"a\": slack, workspace; \"b\": banking), so their per-model rates are not like for like; they share no suite (different benchmarks or suites): their rates measure different tasks",
    ]);
    // and each model's own conditions ran different suites too
    expect(likeForLikeWarnings(items).filter((x) => x.includes(ATTACK_MIX_MARK))).toEqual([
      "\"a\": its conditions ran different suites (\"no_defense\": workspace; \"tool_filter\": slack, workspace), so its per-condition rates are not like for like; narrow with --where suite=workspace to remove the suite difference only (their tasks are not compared here, so their (suite, user task, injection task, attack) cells may still differ after it: label's summary keeps no task ids, and other inputs may have none; estimate --table and report compare the cells where the ids are recorded), or compare --by condition (common cells)",
      "\"b\": its conditions ran different suites (\"no_defense\": workspace; \"tool_filter\": banking), so its per-condition rates are not like for like; they share no suite (different benchmarks or suites): their rates measure different tasks",
    ]);
  });
  it("with task ids, models on the same attacks and suites but different cells are said; the same cells are not", () => {
    const cell = (model: string, u: string) => ({ model, condition: "c", attack: "a", suite: "s", user_task_id: u, injection_task_id: "i" });
    expect(likeForLikeWarnings([cell("m", "u1"), cell("n", "u1")])).toEqual([]);
    expect(likeForLikeWarnings([cell("m", "u1"), cell("m", "u2"), cell("n", "u1")])).toEqual([
      "agent models ran different (suite, user task, injection task, attack) cells (\"m\" 2, \"n\" 1; 1 shared by all), so their per-model rates are not like for like; compare --common-tasks compares them on the tasks every model ran",
    ]);
  });
  it("model names that differ only in case or whitespace are kept apart and said, naming every spelling (AgentDojo's and AgentDyn's Llama)", () => {
    const items = [
      { model: "meta-llama_Llama-3.3-70B-Instruct", condition: "c", attack: "a", suite: "s" },
      { model: "meta-llama_llama-3.3-70b-instruct", condition: "c", attack: "a", suite: "s" },
      { model: " meta-llama_llama-3.3-70b-instruct ", condition: "c", attack: "a", suite: "s" },
      { model: "gpt-4o", condition: "c", attack: "a", suite: "s" },
    ];
    expect(likeForLikeWarnings(items)).toEqual([
      'agent model names " meta-llama_llama-3.3-70b-instruct " and "meta-llama_Llama-3.3-70B-Instruct" and "meta-llama_llama-3.3-70b-instruct" differ only in case or whitespace: ' +
        "they are kept apart, one rate each (they may be one model run on different benchmarks or settings, whose pooled rate would mix them); if they are one model, give its runs one spelling to pool them",
    ]);
  });
  it("names what differs: Unicode composition (NFC vs NFD) and full-width forms are not 'case or whitespace' (verifier 37 V2.5)", () => {
    const it1 = (model: string) => ({ model, condition: "c", attack: "a", suite: "s" });
    const [w] = likeForLikeWarnings(["M\u00e9", "Me\u0301", "\uff2d\u00e9"].map(it1));
    expect(w).toContain(MODEL_SPELLING_MARK);
    expect(w).not.toMatch(/case|whitespace/);
    expect(w).toMatch(/differ only in Unicode composition \(NFC vs NFD[^)]*\) or compatibility forms \(full-width letters/);
    // the two that print alike are told apart by their escapes
    expect(w).toContain('"Me\u0301" (written "Me\\u0301")');
    expect(w).toContain('(written "M\\u00E9")');
    expect(w).toContain('(written "\\uFF2D\\u00E9")');
    expect(spellingDifferences(["Me\u0301", "M\u00e9"])).toEqual([expect.stringMatching(/^Unicode composition/)]);
    expect(spellingDifferences(["Ab", " ab "])).toEqual(["case", "whitespace"]);
    expect(isLikeForLikeWarning(w)).toBe(true);
  });
  it("nothing to say: one model, or models over the same attacks and suites", () => {
    expect(likeForLikeWarnings([{ model: "m", condition: "c", attack: "a" }])).toEqual([]);
    expect(likeForLikeWarnings([{ model: "m", attack: "a", suite: "s" }, { model: "n", attack: "a", suite: "s" }, { attack: "b" }])).toEqual([]);
  });
});

describe("pooledConditionWarnings", () => {
  const m = (o: Record<string, string[]>) => new Map(Object.entries(o).map(([k, v]) => [k, new Set(v)]));
  it("warns once when models are pooled over different conditions, naming each model's and the shared ones", () => {
    // red team 13: gpt-4o pooled over three defenses beside Llama over one, on the real defenses corpus
    const w = pooledConditionWarnings(m({ "gpt-4o": ["tool_filter", "repeat_user_prompt", "pi_detector"], llama: ["repeat_user_prompt"] }));
    expect(w).toHaveLength(1);
    expect(w[0]).toContain(POOLED_MIX_MARK);
    expect(w[0]).toContain("\"gpt-4o\": \"pi_detector\", \"repeat_user_prompt\", \"tool_filter\"; \"llama\": \"repeat_user_prompt\"");
    expect(w[0]).toContain("--where condition=repeat_user_prompt");
    expect(isLikeForLikeWarning(w[0])).toBe(true);
  });
  it("says so when no condition is shared; nothing when the sets match or one model has conditions", () => {
    expect(pooledConditionWarnings(m({ a: ["x"], b: ["y"] }))[0]).toContain("no condition is shared by every model");
    expect(pooledConditionWarnings(m({ a: ["x", "y"], b: ["y", "x"] }))).toEqual([]);
    expect(pooledConditionWarnings(m({ a: ["x", "y"], b: [] }))).toEqual([]);
  });
  it("names a model's condition that has runs but none attacked, as compare does (new user 48, 11)", () => {
    // AgentDyn: gpt-5-mini's tool_filter folder holds 4 unattacked runs, in no model's set of attacked conditions
    const unattacked = new Map([
      ["gpt-5-mini", new Map([["tool_filter", 4], ["no_defense", 10]])],
      ["gpt-4o", new Map([["no_defense", 40]])],
    ]);
    const w = pooledConditionWarnings(m({ "gpt-4o": ["no_defense", "tool_filter"], "gpt-5-mini": ["no_defense"] }), unattacked);
    expect(w).toHaveLength(1);
    expect(w[0]).toContain("\"gpt-5-mini\": \"no_defense\"");
    expect(w[0]).toContain("not in these sets (runs, but none attacked: no rate there): \"gpt-5-mini\" under \"tool_filter\": 4 runs, none attacked");
    // a condition with attacked runs too is in the sets: not repeated
    expect(w[0]).not.toContain("under no_defense");
  });
});

describe("likeForLikeWarnings: runs without a condition are the condition (none) (new user 35)", () => {
  it("a model's runs with no condition are compared with its conditioned runs; a run without any condition compares nothing per model", () => {
    const w = likeForLikeWarnings([
      { model: "m", condition: "no_defense", attack: "ii" },
      { model: "m", attack: "direct" },
    ]).filter((x) => x.includes(ATTACK_MIX_MARK));
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^"m": its conditions ran different attacks \(\(none\): direct; "no_defense": ii\)/);
    expect(likeForLikeWarnings([{ model: "m", attack: "ii" }, { model: "m", attack: "direct" }]).filter((x) => x.includes(ATTACK_MIX_MARK))).toEqual([]);
  });
});

// issue 26: at 1,000,000 trajectories the callers made a list of a million items for this check; they now hand it a
// generator (each item made as it is read) or add items one at a time (`LikeForLikeGroups`), with the same warnings.
describe("likeForLikeWarnings: items read once, one at a time (issue 26)", () => {
  const items = [
    { model: "m", condition: "base", attack: "a", suite: "s1", user_task_id: "u1", injection_task_id: "i" },
    { model: "m", condition: "def", attack: "b", suite: "s1", user_task_id: "u1", injection_task_id: "i" },
    { model: "n", condition: "base", attack: "a", suite: "s2", user_task_id: "u1", injection_task_id: "i" },
    { model: "M", condition: "base", attack: "a", suite: "s1", user_task_id: "u1", injection_task_id: "i" },
    { condition: "base", attack: "z" },
  ];
  it("a one-pass generator gives the warnings a list gives, each item read once", () => {
    const expected = likeForLikeWarnings(items);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    let reads = 0;
    const once = function* () {
      for (const it of items) {
        reads++;
        yield { ...it };
      }
    };
    expect(likeForLikeWarnings(once())).toEqual(expected);
    expect(reads).toBe(items.length);
  });
  it("LikeForLikeGroups: the same warnings, added one by one; read twice (other words) it is unchanged", () => {
    const g = new LikeForLikeGroups();
    for (const it of items) g.add(it);
    expect(g.warnings()).toEqual(likeForLikeWarnings(items));
    const words = { ran: "have a benchmark utility verdict on", hint: "no filter restores them" };
    expect(g.warnings(words)).toEqual(likeForLikeWarnings(items, words));
    expect(g.warnings()).toEqual(likeForLikeWarnings(items));
    expect(new LikeForLikeGroups().warnings()).toEqual([]);
  });
});
