/**
 * The one definition of "attacked" (src/ingest/attacked.ts, issue 22 item 9): an attack value that means "no
 * attack" means it in every format, so a denominator never depends on the input format. Real vendored runs (an
 * AgentDojo file, the Inspect log fixture) rewritten with `attack: "benign"`, beside a chat JSONL line.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAttacked, meansNoAttack, normalizeAttack } from "../../src/ingest/attacked.js";
import { readTrajectories } from "../../src/ingest/index.js";
import { injectionExposure } from "../../src/verdict/exposure.js";
import { evidenceContext } from "../../src/evidence/context.js";
import { surfaceOfTrajectory } from "../../src/serialize/surface.js";
import type { Trajectory } from "../../src/types.js";
import { DATA } from "../helpers/paths.js";

describe("meansNoAttack / isAttacked / normalizeAttack", () => {
  it.each(["", " ", "none", "None", "NONE", "null", "nil", "N/A", "na", "no", "false", "no_attack", "no-attack", "no attack", "benign", "Clean", "baseline", null, undefined])(
    "%j means no attack",
    (v) => {
      expect(meansNoAttack(v)).toBe(true);
      expect(isAttacked({ attack: v as string | undefined, injections: {} })).toBe(false);
    },
  );
  it.each(["important_instructions", "tool_knowledge", "direct", "benign_looking_attack", "nonetheless"])("%j is an attack", (v) => {
    expect(meansNoAttack(v)).toBe(false);
    expect(isAttacked({ attack: v, injections: {} })).toBe(true);
  });
  it("recorded injected text makes a run attacked whatever its attack field says", () => {
    expect(isAttacked({ attack: "benign", injections: { p: "do X" } })).toBe(true);
    expect(isAttacked({ injections: { p: "do X" } })).toBe(true);
  });
  it("normalizeAttack drops a no-attack value, keeps a non-empty original in metadata, and is idempotent", () => {
    const t = { id: "a", source: { format: "chat-jsonl", path: "x" }, injections: {}, messages: [], attack: "Benign", metadata: { k: 1 } } as unknown as Trajectory;
    normalizeAttack(t);
    expect(t.attack).toBeUndefined();
    expect(t.metadata).toEqual({ k: 1, original_attack: "Benign" });
    normalizeAttack(t);
    expect(t.metadata).toEqual({ k: 1, original_attack: "Benign" });
    const e = { id: "b", source: { format: "inspect", path: "x" }, injections: {}, messages: [], attack: "" } as unknown as Trajectory;
    normalizeAttack(e);
    expect("attack" in e).toBe(false);
    expect(e.metadata).toBeUndefined();
    const a = { id: "c", source: { format: "inspect", path: "x" }, injections: {}, messages: [], attack: "important_instructions" } as unknown as Trajectory;
    normalizeAttack(a);
    expect(a.attack).toBe("important_instructions");
  });
});

describe('attack "benign" in every format', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-attacked-"));
    // AgentDojo: a real vendored run, its attack_type set to "benign" and its injections emptied
    const ad = JSON.parse(fs.readFileSync(path.join(DATA, "agentdojo/runs/gpt-4o-2024-05-13/workspace/user_task_5/important_instructions/injection_task_3.json"), "utf8"));
    ad.attack_type = "benign";
    ad.injections = {};
    fs.mkdirSync(path.join(dir, "ad"));
    fs.writeFileSync(path.join(dir, "ad", "run.json"), JSON.stringify(ad));
    // Inspect: the vendored log with its sample's attack_type "benign", no injections
    const log = JSON.parse(fs.readFileSync(path.join(DATA, "inspect/tool-poisoning-log.json"), "utf8"));
    log.samples = [log.samples[0]];
    log.samples[0].metadata = { attack_type: "benign" };
    fs.writeFileSync(path.join(dir, "log.json"), JSON.stringify(log));
    // chat JSONL
    fs.writeFileSync(path.join(dir, "chat.jsonl"), JSON.stringify({ id: "c1", messages: [{ role: "user", content: "hi" }], metadata: { attack_type: "benign" } }) + "\n");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads as unattacked in AgentDojo, Inspect and chat JSONL alike: no attack, the value kept, no exposure, no surface", async () => {
    const ts: Trajectory[] = [];
    for await (const it of readTrajectories([path.join(dir, "ad", "run.json"), path.join(dir, "log.json"), path.join(dir, "chat.jsonl")])) {
      if (it.kind === "error") throw new Error(it.error.message);
      ts.push(it.trajectory);
    }
    expect(ts.map((t) => t.source.format).sort()).toEqual(["agentdojo", "chat-jsonl", "inspect"]);
    for (const t of ts) {
      expect(t.attack, t.source.format).toBeUndefined();
      expect(t.metadata?.original_attack, t.source.format).toBe("benign");
      expect(isAttacked(t), t.source.format).toBe(false);
      expect(injectionExposure(evidenceContext(t)).state, t.source.format).toBe("unattacked");
      expect(surfaceOfTrajectory(t), t.source.format).toBeUndefined();
    }
  });
});
