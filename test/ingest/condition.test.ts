/**
 * Finding 6 (red team): `"defense": "none"` in a chat JSONL line (Inspect logs likewise) gave a condition `none`
 * beside AgentDojo's `no_defense`, so compare showed two conditions for one. The values meaning "no defense" are
 * defined once (src/ingest/attacked.ts) and every format normalizes `condition` to `no_defense`, keeping the
 * original in `metadata.original_condition`. Ambiguous values (`baseline`, ...) are left alone.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meansNoDefense, normalizeCondition } from "../../src/ingest/attacked.js";
import { readTrajectories } from "../../src/ingest/index.js";
import type { Trajectory } from "../../src/types.js";
import { DATA } from "../helpers/paths.js";

describe("meansNoDefense / normalizeCondition", () => {
  it.each(["", " ", "none", "None", "NONE", "null", "nil", "no_defense", "no-defense", "No Defense", "nodefense", "no_defence", "undefended"])("%j means no defense", (v) => {
    expect(meansNoDefense(v)).toBe(true);
  });
  it.each(["baseline", "n/a", "no", "false", "off", "tool_filter", "spotlighting_with_delimiting", "nonetheless", null, undefined])("%j is not read as no defense", (v) => {
    expect(meansNoDefense(v)).toBe(false);
  });
  it("normalizeCondition sets no_defense, keeps the original once, and is idempotent", () => {
    const t = { id: "a", source: { format: "chat-jsonl", path: "x" }, injections: {}, messages: [], condition: "None", metadata: { k: 1 } } as unknown as Trajectory;
    normalizeCondition(t);
    expect(t.condition).toBe("no_defense");
    expect(t.metadata).toEqual({ k: 1, original_condition: "None" });
    normalizeCondition(t);
    expect(t.metadata).toEqual({ k: 1, original_condition: "None" });
    const d = { id: "b", source: { format: "chat-jsonl", path: "x" }, injections: {}, messages: [], condition: "no_defense" } as unknown as Trajectory;
    normalizeCondition(d);
    expect(d.metadata).toBeUndefined();
    const f = { id: "c", source: { format: "chat-jsonl", path: "x" }, injections: {}, messages: [], condition: "baseline" } as unknown as Trajectory;
    normalizeCondition(f);
    expect(f.condition).toBe("baseline");
  });
});

describe("no defense in every format", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-condition-"));
    const msgs = [{ role: "user", content: "hi" }];
    const lines = [
      { id: "c-none", messages: msgs, defense: "none" },
      { id: "c-None", messages: msgs, metadata: { defense: "None" } },
      { id: "c-null", messages: msgs, defense: null },
      { id: "c-empty", messages: msgs, metadata: { condition: "" } },
      { id: "c-dash", messages: msgs, condition: "no-defense" },
      { id: "c-baseline", messages: msgs, condition: "baseline" },
      { id: "c-absent", messages: msgs },
    ];
    fs.writeFileSync(path.join(dir, "chat.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const log = JSON.parse(fs.readFileSync(path.join(DATA, "inspect/tool-poisoning-log.json"), "utf8"));
    const s0 = log.samples[0];
    log.samples = [
      { ...s0, id: "i-none", metadata: { defense: "None" } },
      { ...s0, id: "i-null", metadata: { defense: null } },
      { ...s0, id: "i-filter", metadata: { defense: "tool_filter" } },
    ];
    fs.writeFileSync(path.join(dir, "log.json"), JSON.stringify(log));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("chat JSONL and Inspect read none/None/null/\"\"/no-defense as no_defense, keep the original, leave baseline and absent alone", async () => {
    const by = new Map<string, Trajectory>();
    for await (const it of readTrajectories([path.join(dir, "chat.jsonl"), path.join(dir, "log.json")])) {
      if (it.kind === "error") throw new Error(it.error.message);
      by.set(String(it.trajectory.metadata?.sample_id ?? it.trajectory.id), it.trajectory);
    }
    const cond = (id: string) => by.get(id)?.condition;
    const orig = (id: string) => by.get(id)?.metadata?.original_condition;
    for (const [id, o] of [["c-none", "none"], ["c-None", "None"], ["c-null", null], ["c-empty", ""], ["c-dash", "no-defense"], ["i-none", "None"], ["i-null", null]] as const) {
      expect(cond(id), id).toBe("no_defense");
      expect(orig(id), id).toBe(o);
    }
    expect(cond("c-baseline")).toBe("baseline");
    expect(cond("c-absent")).toBeUndefined();
    expect(cond("i-filter")).toBe("tool_filter");
    expect(orig("i-filter")).toBeUndefined();
  });

  it("AgentDojo's no_defense is unchanged (the name the others are normalized to)", async () => {
    const f = path.join(DATA, "agentdojo/runs/gpt-4o-2024-05-13/workspace/user_task_5/important_instructions/injection_task_3.json");
    for await (const it of readTrajectories([f])) {
      if (it.kind === "error") throw new Error(it.error.message);
      expect(it.trajectory.condition).toBe("no_defense");
      expect(it.trajectory.metadata?.original_condition).toBeUndefined();
    }
  });
});
