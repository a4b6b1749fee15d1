/**
 * A fault while preparing one trajectory, or while building one judge's request for it, is that item's error: the
 * run goes on, every other trajectory is judged and every verdict kept (red team 42: one item's fault stopped the
 * whole `label` run). The faults are scripted (module mocks) because every input known to cause one is fixed: the
 * last was a 5 MB tool description "a.a.a..." whose sentence splitter overflowed the stack
 * (test/serialize/instructing-scan.test.ts). The judge is the real `openai` client against a loopback server.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.mock("../../src/serialize/instructing.js", async (orig) => {
  const real = await orig<typeof import("../../src/serialize/instructing.js")>();
  return {
    ...real,
    withInstructingDescriptions: (t: { id: string }) => {
      if (t.id === "boom") throw new RangeError("Maximum call stack size exceeded");
      return real.withInstructingDescriptions(t as never);
    },
  };
});
vi.mock("../../src/serialize/render.js", async (orig) => {
  const real = await orig<typeof import("../../src/serialize/render.js")>();
  return {
    ...real,
    renderForJudge: (t: { id: string }, o?: never) => {
      if (t.id === "crash") throw new RangeError("Invalid string length");
      return real.renderForJudge(t as never, o);
    },
  };
});

import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { startFakeBatch } from "../helpers/fake-batch.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing happened" });
let fake: FakeOpenAI;
let dir: string;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => completion(REPLY));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-prepare-fault-"));
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const line = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: `task of ${id}` }, { role: "assistant", content: "done" }] });
const lines = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

function folder(name: string, files: Record<string, string[]>): string {
  const d = path.join(dir, "in", name);
  fs.mkdirSync(d, { recursive: true });
  for (const [f, ids] of Object.entries(files)) fs.writeFileSync(path.join(d, f), ids.map(line).join("\n") + "\n");
  return d;
}

const judge = (price = false) =>
  createOpenAIJudge(
    { id: "j", model: "m", family: "openai", base_url: fake.url, ...(price ? { price: { input_per_mtok: 1, cached_input_per_mtok: 1, output_per_mtok: 1 } } : {}) },
    { retries: 0, minQuoteChars: 12, transport: { sleep: async () => undefined, random: () => 0.5 } },
  );

describe("label: one trajectory's fault is its own error", () => {
  it("a trajectory that cannot be prepared: prepare_failed naming it and its file and line, the others judged, the summary and count say so", async () => {
    const inputs = folder("prep", { "a.jsonl": ["a1", "a2"], "bad.jsonl": ["ok1", "boom", "ok2"], "c.jsonl": ["c1"] });
    const res = await labelRun({ inputs: [inputs], run: "prep", labelsDir: path.join(dir, "labels"), judges: [judge()], concurrency: 2 });
    expect(res.prepareFailed).toBe(1);
    expect(res.progress.errors).toBe(1);
    expect(res.progress.judged).toBe(5);
    const verdicts = lines(path.join(dir, "labels", "prep", "verdicts.jsonl"));
    expect(verdicts.map((v) => v.trajectory_id).sort()).toEqual(["a1", "a2", "c1", "ok1", "ok2"]);
    const errs = lines(path.join(dir, "labels", "prep", "errors.jsonl"));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ kind: "prepare_failed", trajectory_id: "boom", line: 2 });
    expect(errs[0].path).toMatch(/bad\.jsonl$/);
    expect(errs[0].message).toMatch(/^preparing trajectory "boom" of .*bad\.jsonl:2 failed: Maximum call stack size exceeded; it is not judged/);
    expect(res.summary.warnings.some((w) => w.startsWith("ITEM ERROR: 1 trajectory(ies) could not be prepared"))).toBe(true);
  });

  it("with --strict the first such trajectory stops the run, as a bad input item does", async () => {
    const inputs = folder("strict", { "bad.jsonl": ["boom"] });
    await expect(labelRun({ inputs: [inputs], run: "strict", labelsDir: path.join(dir, "labels"), judges: [judge()], strict: true })).rejects.toThrow(/preparing trajectory "boom"/);
  });

  it("a judge's request that cannot be built (rendering throws) is that item's judge_crash, with and without a cost cap; the others judged", async () => {
    for (const cap of [false, true]) {
      const run = `render-${cap}`;
      const inputs = folder(run, { "a.jsonl": ["x1", "crash", "x2"] });
      const res = await labelRun({ inputs: [inputs], run, labelsDir: path.join(dir, "labels"), judges: [judge(cap)], concurrency: 1, ...(cap ? { maxCostUsd: 100 } : {}) });
      expect(res.progress.judged, run).toBe(2);
      expect(res.progress.judge_crashes, run).toBe(1);
      const errs = lines(path.join(dir, "labels", run, "errors.jsonl"));
      expect(errs.map((e) => [e.kind, e.trajectory_id, e.judge_id])).toEqual([["judge_crash", "crash", "j"]]);
      expect(errs[0].message).toContain("Invalid string length");
    }
  });

  it("--batch: a request that cannot be built (rendering throws in BatchPath.add: RequestBuildError) is that item's judge_crash, with and without a cost cap; the others are sent in the batch and judged", async () => {
    const batch = await startFakeBatch(() => ({ status: 200, body: completion(REPLY).body }));
    try {
      for (const cap of [false, true]) {
        const run = `batch-render-${cap}`;
        const inputs = folder(run, { "a.jsonl": ["y1", "crash", "y2"] });
        const j = createOpenAIJudge(
          { id: "jb", model: "m", family: "openai", base_url: batch.url, batch: true, max_tokens: 1000, ...(cap ? { price: { input_per_mtok: 1, cached_input_per_mtok: 1, output_per_mtok: 1 } } : {}) },
          { retries: 0, minQuoteChars: 12 },
        );
        const res = await labelRun({ inputs: [inputs], run, labelsDir: path.join(dir, "labels"), judges: [j], batch: { pollMs: 2 }, ...(cap ? { maxCostUsd: 100 } : {}) });
        expect(res.interrupted, run).toBe(false);
        expect(res.progress.judge_crashes, run).toBe(1);
        const errs = lines(path.join(dir, "labels", run, "errors.jsonl"));
        expect(errs.map((e) => [e.kind, e.trajectory_id, e.judge_id]), run).toEqual([["judge_crash", "crash", "jb"]]);
        expect(errs[0].message, run).toContain("Invalid string length");
        const verdicts = lines(path.join(dir, "labels", run, "verdicts.jsonl"));
        expect(verdicts.map((v) => [v.trajectory_id, v.status]).sort(), run).toEqual([["y1", "ok"], ["y2", "ok"]]);
      }
      // the two runs' batches held only the trajectories whose request was built
      const sent = batch.answered.map((a) => JSON.stringify(a.body));
      expect(sent).toHaveLength(4);
      expect(sent.some((b) => b.includes("task of crash"))).toBe(false);
    } finally {
      await batch.close();
    }
  }, 60_000);
});
