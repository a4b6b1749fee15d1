/**
 * A `--batch` resume whose inputs were edited after an earlier process sent their batch (red team 37 F4): the old
 * batch's results, on the older text, are stored (paid) and those trajectories are judged again in the same
 * invocation, in a new batch; the run ends with a verdict on each trajectory's text now, none left out as stale.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { readTrajectoryIndex, readVerdicts } from "../../src/store/run-store.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-edited-"));
let fake: FakeBatchServer | undefined;
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("label --batch: inputs edited while their batch was out", () => {
  it("the edited trajectories are judged again in the same resume: every current verdict on the text now", async () => {
    const src = path.join(CORPUS, "runs", "gpt-4o-2024-05-13", "workspace");
    const files = fs.readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).sort().slice(0, 6);
    const input = path.join(tmp, "in");
    for (const f of files) fs.cpSync(path.join(src, f), path.join(input, "gpt-4o-2024-05-13", "workspace", f));
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const f = fake;
    const judge = () => createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
    const warnings: string[] = [];
    const run = (signal?: AbortSignal) => labelRun({ inputs: [input], run: "e", labelsDir: tmp, judges: [judge()], signal, batch: { pollMs: 2 }, onWarning: (w) => warnings.push(w) });

    // 1. stopped once the batch was created (held in progress)
    f.hold = true;
    const ac = new AbortController();
    f.fault = (method, p) => {
      if (method === "POST" && p === "/batches") setImmediate(() => ac.abort());
      return undefined;
    };
    expect((await run(ac.signal)).interrupted).toBe(true);
    expect(f.batches).toHaveLength(1);

    // 2. two inputs edited; the batch then ends with results on their old text
    for (const rel of files.slice(0, 2)) {
      const p = path.join(input, "gpt-4o-2024-05-13", "workspace", rel);
      const d = JSON.parse(fs.readFileSync(p, "utf8"));
      const m = d.messages.find((x: { role: string }) => x.role === "user");
      if (typeof m.content === "string") m.content += " (edited)";
      else m.content[0].content = `${m.content[0].content ?? ""} (edited)`;
      fs.writeFileSync(p, JSON.stringify(d));
    }
    f.fault = undefined;
    f.hold = false;
    const r = await run();
    expect(r.interrupted).toBe(false);
    expect(warnings.some((w) => w.startsWith("2 trajectories changed after the batch holding them was sent"))).toBe(true);
    expect(f.batches).toHaveLength(2); // the old batch, and a new one for the 2 edited
    // every trajectory's latest verdict is on its text now: none left out as stale
    const dir = path.join(tmp, "e");
    const index = await readTrajectoryIndex(dir);
    const latest = new Map<string, string | undefined>();
    for (const v of await readVerdicts(dir)) latest.set(v.trajectory_id, v.content_sha256);
    expect(index.size).toBe(6);
    for (const [id, row] of index) expect(latest.get(id), id).toBe(row.content_sha256);
    expect(r.summary.verdicts).toBe(6);
  }, 60_000);
});
