/**
 * A batch verdict's `content_sha256` comes from its state line (the index row's hash of the same trajectory, kept
 * when the line was written) instead of hashing the trajectory again per result line; state lines written before
 * (without it) still get the trajectory's hash.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { contentSha256 } from "../../src/io/hash.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, jsonlLines as lines, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-content-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("label --batch: the verdict's content hash", () => {
  for (const oldLines of [false, true]) {
    it(oldLines ? "state lines without it (written before): the trajectory is hashed" : "kept on the state line, equal to the index row's and to the trajectory's hash", async () => {
      fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
      const f = fake;
      const name = oldLines ? "old" : "new";
      const judge = () => createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
      const run = (signal?: AbortSignal) => labelRun({ inputs: [SAMPLES], run: name, labelsDir: tmp, judges: [judge()], limit: 12, signal, batch: { pollMs: 2, maxRequests: 5 } });
      const bdir = path.join(tmp, name, "batches", "gpt-batch");
      // 1. everything submitted and held; stopped while polling
      f.hold = true;
      const ac = new AbortController();
      let polls = 0;
      f.fault = (method, p) => {
        if (method === "GET" && /^\/batches\/batch_\d+$/.test(p) && ++polls === 6) setImmediate(() => ac.abort());
        return undefined;
      };
      await run(ac.signal);
      const states = fs.readdirSync(bdir).filter((x) => x.endsWith(".state.jsonl"));
      expect(states.length).toBeGreaterThan(0);
      const hashes = new Map<string, string>();
      for (const s of states) {
        const file = path.join(bdir, s);
        const ls = lines(file);
        for (const l of ls) {
          expect(l.content_sha256).toBe(contentSha256(l.conv.trajectory));
          hashes.set(l.conv.trajectory.id, l.content_sha256);
          if (oldLines) delete l.content_sha256;
        }
        if (oldLines) fs.writeFileSync(file, ls.map((l) => JSON.stringify(l) + "\n").join(""));
      }
      // 2. to the end
      f.fault = undefined;
      f.hold = false;
      await run();
      const rows = new Map(lines(path.join(tmp, name, "trajectories.jsonl")).map((r) => [r.id, r.content_sha256]));
      const verdicts = lines(path.join(tmp, name, "verdicts.jsonl"));
      expect(verdicts).toHaveLength(12);
      for (const v of verdicts) {
        expect(v.content_sha256).toBe(hashes.get(v.trajectory_id));
        expect(v.content_sha256).toBe(rows.get(v.trajectory_id));
      }
    });
  }
});
