/**
 * One normalization for every group name (fixM 5): model, suite, condition, attack and task names lose zero-width
 * characters, bidi controls, other default-ignorable code points and NUL at ingest, as conditions and attacks did
 * alone before, and each change is a warning naming the file and the field. `M\u200b` and `M` are one model.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestWarning } from "../../src/ingest/index.js";
import { normalizeGroupNames } from "../../src/ingest/group-names.js";
import type { Trajectory } from "../../src/types.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-groupnames-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const msgs = [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }];

async function read(rows: object[]): Promise<{ ts: Trajectory[]; warnings: IngestWarning[]; errors: number }> {
  const f = path.join(tmp, `r${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const ts: Trajectory[] = [];
  const warnings: IngestWarning[] = [];
  let errors = 0;
  for await (const it of readTrajectories([f], { onWarning: (w) => warnings.push(w) })) if (it.kind === "trajectory") ts.push(it.trajectory); else errors++;
  return { ts, warnings, errors };
}

describe("group names without invisible characters or NUL", () => {
  it("M\\u200b and M are one model; a NUL in a suite is stripped; the value read is kept; warnings name file and field", async () => {
    const { ts, warnings, errors } = await read([
      { id: "a", agent_model: "M\u200b", suite: "s", messages: msgs },
      { id: "b", agent_model: "M", suite: "s\u0000", messages: msgs },
      { id: "c", agent_model: "M\u00ad", suite: "s", user_task_id: "u\u20601", injection_task_id: "i\u202e1", messages: msgs },
    ]);
    expect(errors).toBe(0);
    expect(new Set(ts.map((t) => t.agent_model))).toEqual(new Set(["M"]));
    expect(new Set(ts.map((t) => t.suite))).toEqual(new Set(["s"]));
    expect(ts[2]).toMatchObject({ user_task_id: "u1", injection_task_id: "i1" });
    expect(ts[0].metadata).toMatchObject({ original_agent_model: "M\u200b" });
    expect(ts[1].metadata).toMatchObject({ original_suite: "s\u0000" });
    const nn = warnings.filter((w) => w.kind === "name_normalized");
    expect(nn.map((w) => w.message.match(/: (\w+) "/)![1])).toEqual(["agent_model", "suite", "agent_model", "user_task_id", "injection_task_id"]);
    expect(nn[0].message).toMatch(/^\/.*\.jsonl: agent_model "M⟨U\+200B⟩" holds invisible or control characters .*: read as "M", so it groups with the same name written without them/);
    expect(nn[1].message).toContain('suite "s\\u0000" holds');
  });

  it("conditions and attacks: the same rule, now said too; a zero-width none is still no_defense", async () => {
    const { ts, warnings } = await read([
      { id: "a", agent_model: "M", condition: "none\u200b", attack: "a\u2066tk", injections: { p: "x" }, messages: msgs },
      { id: "b", agent_model: "M", condition: "spot\u0000", attack: "atk", injections: { p: "x" }, messages: msgs },
    ]);
    expect(ts.map((t) => [t.condition, t.attack])).toEqual([["no_defense", "atk"], ["spot", "atk"]]);
    expect(ts[0].metadata).toMatchObject({ original_condition: "none\u200b", original_attack: "a\u2066tk" });
    expect(warnings.filter((w) => w.kind === "name_normalized").map((w) => w.message.match(/: (\w+) "/)![1])).toEqual(["condition", "attack", "condition"]);
  });

  it("an AgentDojo-layout run's warning is scoped to its model folder; the family follows the cleaned model", () => {
    const file = path.join("/x", "runs", "gpt-4o\u200b", "banking", "user_task_0", "important_instructions", "injection_task_0.json");
    const t = { id: "i", source: { format: "agentdojo", path: file }, injections: {}, messages: [], agent_model: "gpt-4o\u200b", metadata: { model_dir: "gpt-4o\u200b" } } as unknown as Trajectory;
    const w = normalizeGroupNames(t);
    expect(w).toHaveLength(1);
    expect(w[0].scope).toBe(path.join("/x", "runs", "gpt-4o\u200b"));
    expect(t).toMatchObject({ agent_model: "gpt-4o", agent_family: "openai" });
    expect(normalizeGroupNames(t)).toEqual([]); // twice changes nothing more
  });

  it("an AgentDojo folder whose files write a suite with an invisible character: one warning per folder, field and spelling, counting the files (verifier 37 V2.4)", async () => {
    const src = JSON.parse(fs.readFileSync(path.resolve("test/data/agentdojo/runs/gpt-4o-2024-05-13/workspace/user_task_5/tool_knowledge/injection_task_0.json"), "utf8")) as Record<string, unknown>;
    const root = path.join(tmp, "adj");
    const model = path.join(root, "Z");
    // 4 runs under banking/ whose suite_name is "bank\u2060ing" (the layout check compares fields as written), and one
    // whose attack folder disagrees with its attack_type beyond invisible characters (not in the layout: its file)
    const runs: Array<[string, string, string]> = [["user_task_0", "important_instructions", "injection_task_0"], ["user_task_0", "important_instructions", "injection_task_1"], ["user_task_1", "important_instructions", "injection_task_0"], ["user_task_1", "tool_knowledge", "injection_task_2"], ["user_task_2", "none", "none"]];
    for (const [ut, atk, inj] of runs) {
      const dir = path.join(model, "banking", ut, atk);
      fs.mkdirSync(dir, { recursive: true });
      const attack_type = atk === "none" ? "x\u200d" : atk;
      fs.writeFileSync(path.join(dir, `${inj}.json`), JSON.stringify({ ...src, suite_name: "bank\u2060ing", user_task_id: ut, injection_task_id: inj === "none" ? null : inj, attack_type, pipeline_name: "Z" }));
    }
    const warnings: IngestWarning[] = [];
    for await (const it of readTrajectories([root], { onWarning: (w) => warnings.push(w) })) void it;
    const nn = warnings.filter((w) => w.kind === "name_normalized");
    const none = path.join(model, "banking", "user_task_2", "none", "none.json");
    expect(nn.map((w) => [w.path, w.message.match(/: (\w+) "/)![1], w.count])).toEqual([
      [model, "suite", 4],
      [none, "suite", 1],
      [none, "attack", 1],
    ]);
    expect(nn[0].message).toMatch(/^.*\/Z: suite "bank⟨U\+2060⟩ing" holds .* \(4 items, e\.g\. /);
  });
});
