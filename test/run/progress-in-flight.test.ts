/**
 * What `label`'s progress says is in flight (src/run/online.ts, src/run/label.ts): the verdicts whose judge is at work
 * on them, at most the judge's concurrency; the items read ahead and waiting for the judge's turn are `queued`.
 * Session 45: a line said "in flight 8" at concurrency 4 (it counted both). Through labelRun, the real `openai` client
 * and a loopback server that answers after a short delay (so the reading loop runs ahead of the judge).
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import type { LabelProgress } from "../../src/run/label-core.js";
import { labelRun } from "../../src/run/label.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const NOT_EXPOSED = JSON.stringify({ findings: [{ bucket: "not_exposed", evidence: [] }], label: "not_exposed", rationale: "nothing" });
let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("label progress: in flight and queued", () => {
  it("at concurrency 4: in flight never passes 4 (retries not counted twice), what waits is queued, both 0 at the end", async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-inflight-"));
    try {
      // every other request fails once with a 500, so items also sit in a retry's wait
      fake = await startFakeOpenAI((_req, n) => (n % 2 === 1 ? { status: 500, body: { error: { message: "busy" } } } : { ...completion(NOT_EXPOSED), delayMs: 30 }));
      const judge = createOpenAIJudge(
        { id: "j4", model: "fake-model", family: "openai", base_url: fake.url, api_key_env: "K", concurrency: 4 },
        { retries: 2, minQuoteChars: 12, env: { K: "sk-test-inflight-000" }, transport: { sleep: async () => {}, random: () => 0.5 } },
      );
      const seen: LabelProgress[] = [];
      const r = await labelRun({ inputs: [SAMPLES], run: "r", labelsDir: tmp, judges: [judge], limit: 20, onProgress: (p) => seen.push({ ...p }) });
      expect(r.stoppedJudges).toEqual({});
      expect(seen.length).toBeGreaterThan(0);
      expect(Math.max(...seen.map((p) => p.in_flight))).toBeLessThanOrEqual(4);
      expect(Math.max(...seen.map((p) => p.in_flight))).toBeGreaterThan(0);
      // the reading loop reads ahead up to twice the concurrency: the rest of what was scheduled is queued
      expect(Math.max(...seen.map((p) => (p.queued ?? 0) + p.in_flight))).toBeLessThanOrEqual(8);
      expect(Math.max(...seen.map((p) => p.queued ?? 0))).toBeGreaterThan(0);
      expect(seen.every((p) => p.in_flight >= 0 && (p.queued ?? 0) >= 0)).toBe(true);
      const last = seen[seen.length - 1];
      expect([last.in_flight, last.queued ?? 0]).toEqual([0, 0]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
