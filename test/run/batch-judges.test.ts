/**
 * Red team (Batch path): judges whose ids give one folder (`safeName`: "j/a" and "j_a") are refused before anything
 * is written (usage error naming both); chunk keys carry the judge's tag (`judgeTag`), so two judges never write the
 * same chunk files; keys of runs written before the tag (`r<round>-<time>-<n>`) still resume; a processed chunk whose
 * follow-up got no request leaves no empty `<key>-f.*` files. Loopback Batch API, real `openai` client.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { UsageError } from "../../src/errors.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { judgeTag } from "../../src/run/batch-chunk.js";
import { refuseSharedBatchFolders } from "../../src/run/batch-judges.js";
import { dryRun } from "../../src/run/dry-run.js";
import { labelRun } from "../../src/run/label.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";
import { jsonlLines as lines, userMessageOf as userOf } from "../helpers/fake-batch.js";

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-judges-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const judge = (id: string, url: string) => createOpenAIJudge({ id, model: "gpt-4o-mini", family: "openai", base_url: url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
const entries = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8")).extra.batches as Array<{ key: string; judge_id: string; status: string; batch_id?: string }>;
/** Every file under `dir`, recursively, with its size. */
function files(dir: string): Array<{ f: string; size: number }> {
  const out: Array<{ f: string; size: number }> = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) out.push({ f: path.join(e.parentPath ?? e.path, e.name), size: fs.statSync(path.join(e.parentPath ?? e.path, e.name)).size });
  return out;
}

describe("batch judges' folders and chunk keys", () => {
  it('"j/a" and "j_a" in one --batch invocation: a usage error naming both, no run folder written', async () => {
    const url = "http://127.0.0.1:9/v1"; // never contacted
    const err = await labelRun({ inputs: [SAMPLES], run: "clash", labelsDir: tmp, judges: [judge("j/a", url), judge("j_a", url)], limit: 2, batch: { pollMs: 2 } }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect(err!.message).toContain('"j/a"');
    expect(err!.message).toContain('"j_a"');
    expect(err!.message).toContain("batches/j_a/");
    expect(fs.existsSync(path.join(tmp, "clash"))).toBe(false);
    // label --dry-run refuses it alike (re-check: it said nothing)
    await expect(dryRun({ inputs: [SAMPLES], run: "clash", labelsDir: tmp, judges: [judge("j/a", url), judge("j_a", url)], limit: 2, batch: { pollMs: 2 } })).rejects.toThrow(/would share the folder batches\/j_a\//);
    // without --batch there is no folder to share; one id twice is not a clash of folders
    expect(() => refuseSharedBatchFolders([judge("j/a", url), judge("j_a", url)], undefined)).not.toThrow();
    expect(() => refuseSharedBatchFolders([judge("j/a", url), judge("j-a", url)], {})).not.toThrow();
  });

  it("two batch judges: keys tagged per judge, every verdict stored, no empty follow-up files left", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const res = await labelRun({ inputs: [SAMPLES], run: "two", labelsDir: tmp, judges: [judge("a", fake.url), judge("b", fake.url)], limit: 3, batch: { pollMs: 2 } });
    expect(res.stoppedJudges).toEqual({});
    const dir = path.join(tmp, "two");
    const es = entries(dir);
    expect(es.length).toBe(2);
    for (const e of es) expect(e.key).toMatch(new RegExp(`^r0-${judgeTag(e.judge_id)}-[0-9a-z]+-\\d+$`));
    expect(judgeTag("a")).not.toBe(judgeTag("b"));
    const verdicts = lines(path.join(dir, "verdicts.jsonl"));
    expect(verdicts.filter((v) => v.judge_id === "a")).toHaveLength(3);
    expect(verdicts.filter((v) => v.judge_id === "b")).toHaveLength(3);
    const empty = files(path.join(dir, "batches")).filter((x) => x.size === 0);
    expect(empty).toEqual([]);
    expect(files(path.join(dir, "batches")).some((x) => x.f.includes("-f."))).toBe(false);
  });

  it("a run whose chunk keys predate the tag (r<round>-<time>-<n>) resumes: polled, not sent again, every verdict stored", async () => {
    fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userOf(body))).body }));
    const f = fake;
    const dir = path.join(tmp, "old");
    const ac = new AbortController();
    f.hold = true;
    f.fault = (method, p) => {
      if (method === "POST" && p === "/batches") setImmediate(() => ac.abort());
      return undefined;
    };
    const r1 = await labelRun({ inputs: [SAMPLES], run: "old", labelsDir: tmp, judges: [judge("gpt-batch", f.url)], limit: 3, signal: ac.signal, batch: { pollMs: 2 } });
    expect(r1.interrupted).toBe(true);
    expect(entries(dir)).toHaveLength(1);
    expect(entries(dir)[0].batch_id).toBeDefined();
    // rewrite the run as an older version wrote it: the key without the judge's tag, in the snapshot, the chunk
    // files' names and custom_ids, and the request file the provider holds
    const tagged = entries(dir)[0].key;
    const old = tagged.replace(`-${judgeTag("gpt-batch")}-`, "-");
    expect(old).toMatch(/^r0-[0-9a-z]+-\d+$/);
    const swap = (s: string) => s.split(tagged).join(old);
    fs.writeFileSync(path.join(dir, "store.json"), swap(fs.readFileSync(path.join(dir, "store.json"), "utf8")));
    const bdir = path.join(dir, "batches", "gpt-batch");
    for (const name of fs.readdirSync(bdir)) {
      const text = fs.readFileSync(path.join(bdir, name), "utf8");
      fs.rmSync(path.join(bdir, name));
      fs.writeFileSync(path.join(bdir, swap(name)), swap(text));
    }
    for (const file of f.files.values()) file.content = swap(file.content);
    f.fault = undefined;
    f.hold = false;
    const r2 = await labelRun({ inputs: [SAMPLES], run: "old", labelsDir: tmp, judges: [judge("gpt-batch", f.url)], limit: 3, batch: { pollMs: 2 } });
    expect(r2.interrupted).toBe(false);
    expect(f.batches).toHaveLength(1);
    expect(entries(dir).map((e) => [e.key, e.status])).toEqual([[old, "processed"]]);
    const verdicts = lines(path.join(dir, "verdicts.jsonl"));
    expect(verdicts).toHaveLength(3);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
  });
});
