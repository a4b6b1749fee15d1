/**
 * How far `label` reads ahead of its judges (issue 26, `src/run/online.ts`): the signature judge keeps 128
 * trajectories in flight, and `label` reads up to twice a run's concurrency ahead; for a corpus of large trajectories
 * that would hold hundreds of them, so the reading loop also waits once the trajectories in flight hold
 * `MAX_PENDING_CHARS` of text (with at least `MIN_PENDING` in flight). No clock decides anything: the judge holds
 * every verdict until the test lets them go, so what was read by then is all the loop would read.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Judge } from "../../src/judges/judge.js";
import { createSignatureJudge, trajectoryChars } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { heldChars, MAX_PENDING_CHARS, MIN_PENDING } from "../../src/run/online.js";
import { readVerdicts } from "../../src/store/run-store.js";
import type { Trajectory } from "../../src/types.js";
import { SAMPLES } from "../helpers/paths.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** `n` AgentDojo runs made from a sample, each with `pad` characters added to its first tool result. */
function corpus(root: string, n: number, pad: number): string {
  const sample = path.join(SAMPLES, "runs", "gpt-4o-2024-05-13", "workspace", "user_task_5", "important_instructions", "injection_task_3.json");
  const run = JSON.parse(fs.readFileSync(sample, "utf8")) as { messages: Array<{ role: string; content: unknown }> };
  const tool = run.messages.findIndex((m) => m.role === "tool");
  const out = path.join(root, "runs", "gpt-4o-2024-05-13", "workspace");
  for (let i = 0; i < n; i++) {
    const copy = structuredClone(run);
    const filler = `${"lorem ipsum dolor sit amet ".repeat(Math.ceil(pad / 27)).slice(0, pad)} ${i}`;
    const m = copy.messages[tool];
    m.content = typeof m.content === "string" ? `${filler}\n${m.content}` : [{ type: "text", content: filler }, ...((m.content as unknown[]) ?? [])];
    const f = path.join(out, `user_task_${i}`, "important_instructions", "injection_task_3.json");
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, JSON.stringify(copy));
  }
  return path.join(root, "runs");
}

/** The signature judge (on this thread), holding every verdict until `release()`; `started` lists what it got. */
function heldJudge(over: Partial<Judge> = {}) {
  const inline = createSignatureJudge({ workers: 0 });
  const started: Trajectory[] = [];
  let release!: () => void;
  const gate = new Promise<void>((ok) => (release = ok));
  const judge: Judge = {
    ...inline,
    concurrency: 128,
    ...over,
    judge: async (t, ctx) => {
      started.push(t);
      await gate;
      return inline.judge(t, ctx);
    },
  };
  return { judge, started, release };
}

/** Resolves once `started` has stopped growing: checked over a few turns of the event loop after it last grew. */
async function settled(started: unknown[]): Promise<number> {
  let last = -1;
  let quiet = 0;
  while (quiet < 20) {
    await new Promise((r) => setTimeout(r, 10));
    if (started.length === last) quiet++;
    else {
      last = started.length;
      quiet = 0;
    }
  }
  return last;
}

describe("label's read-ahead (issue 26)", () => {
  it("large trajectories: the reading loop waits once those in flight hold MAX_PENDING_CHARS of text, and every one is judged once let go", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ahead-"));
    // each just over MAX_PENDING_CHARS / MIN_PENDING characters: MIN_PENDING of them pass the bound together
    const inputs = corpus(dir, MIN_PENDING + 8, Math.ceil(MAX_PENDING_CHARS / MIN_PENDING) + 1024);
    const { judge, started, release } = heldJudge();
    const run = labelRun({ inputs: [inputs], run: "r", labelsDir: path.join(dir, "labels"), judges: [judge] });
    const inFlight = await settled(started);
    // concurrency 128 would let all 24 in; the characters stop the reading at MIN_PENDING
    expect(inFlight).toBe(MIN_PENDING);
    expect(started.reduce((a, t) => a + trajectoryChars(t), 0)).toBeGreaterThanOrEqual(MAX_PENDING_CHARS);
    release();
    const res = await run;
    expect(res.interrupted ?? false).toBe(false);
    const verdicts = await readVerdicts(path.join(dir, "labels", "r"));
    expect(verdicts.length).toBe(MIN_PENDING + 8);
    expect(new Set(verdicts.map((v) => v.trajectory_id)).size).toBe(MIN_PENDING + 8);
  });

  it("a remote judge (an LLM) always gets its concurrency in flight, however large the trajectories (red team 23 M2)", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ahead-"));
    const inputs = corpus(dir, MIN_PENDING + 8, Math.ceil(MAX_PENDING_CHARS / MIN_PENDING) + 1024);
    const { judge, started, release } = heldJudge({ local: false, concurrency: MIN_PENDING + 4 });
    const run = labelRun({ inputs: [inputs], run: "r", labelsDir: path.join(dir, "labels"), judges: [judge] });
    expect(await settled(started)).toBe(MIN_PENDING + 4);
    release();
    await run;
    expect((await readVerdicts(path.join(dir, "labels", "r"))).length).toBe(MIN_PENDING + 8);
  });

  it("heldChars counts a trajectory's metadata and tools too (chat JSONL and Inspect keep metadata whole: red team 23 M1)", () => {
    const t = { id: "x", source: { format: "chat", path: "x" }, injections: {}, messages: [{ index: 0, role: "user", text: "hi" }] } as Trajectory;
    const big = "字".repeat(100_000);
    expect(heldChars({ ...t, metadata: { note: big, nested: [{ k: big }] } })).toBe(heldChars(t) + 2 * big.length + "note".length + "nested".length + "k".length);
    expect(heldChars({ ...t, tools: [{ name: "f", description: big }] } as Trajectory)).toBeGreaterThan(big.length);
  });

  it("small trajectories: the characters never bind; the run's concurrency bounds what is in flight", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-ahead-"));
    const inputs = corpus(dir, 40, 100);
    const { judge, started, release } = heldJudge();
    const run = labelRun({ inputs: [inputs], run: "r", labelsDir: path.join(dir, "labels"), judges: [judge] });
    // every one of the 40 is handed to the judge before any verdict comes back
    expect(await settled(started)).toBe(40);
    release();
    await run;
    expect((await readVerdicts(path.join(dir, "labels", "r"))).length).toBe(40);
  });
});
