/**
 * A batch path's file that cannot be written names the file and says what was sent (break54 finding 4: `label --batch`
 * under a file-size limit printed only `ipi-judge: EFBIG: file too large, write`). The built CLI under `ulimit -f`
 * against a loopback Batch API (test/helpers/fake-batch.ts), on the vendored AgentDojo samples:
 * - a chunk's request file: "no batch was sent for chunk ...", and the same command resumes (one batch, every verdict);
 * - a result file being downloaded: "the results of batch ... stay with the provider", and the resume downloads them
 *   (the batch is not sent again).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { CLI, runCli } from "../helpers/cli.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, userMessageOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { ROOT, SAMPLES } from "../helpers/paths.js";

let tmp: string;
let fake: FakeBatchServer;
let judges: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-write-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => fake?.close());

async function start(): Promise<void> {
  fake = await startFakeBatch((body) => ({ status: 200, body: completion(benchReply(userMessageOf(body))).body }));
  judges = path.join(tmp, `judges-${Date.now()}.json`);
  fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "fake", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true }] }));
}

const args = (run: string, limit: number) => ["label", SAMPLES, "--judges", judges, "--run", run, "--labels-dir", path.join(tmp, "labels"), "--batch", "--batch-poll", "0.01", "--limit", String(limit)];

/** The CLI under `ulimit -f KB` (bash's unit: 1024 bytes), asynchronously (the fake server lives in this process). */
function limited(kb: number, a: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const cmd = `ulimit -f ${kb}; exec '${process.execPath}' '${CLI}' ${a.map((x) => `'${x}'`).join(" ")}`;
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", cmd], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const verdicts = (run: string) => fs.readFileSync(path.join(tmp, "labels", run, "verdicts.jsonl"), "utf8").split("\n").filter(Boolean).length;

describe.skipIf(process.platform !== "linux" || spawnSync("bash", ["-c", "ulimit -f 10"]).status !== 0)("label --batch: a file it cannot write", () => {
  it("a chunk's request file: named, no batch sent for the chunk, and the same command resumes", async () => {
    await start();
    // the 82 samples' request file is ~0.7 MB: a 200 KB limit cuts it while it is written
    const r = await limited(200, args("req", 82));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot write \S+\/batches\/fake\/r0-\S+\.requests\.jsonl: file too large \(a file-size limit\)\. No batch was sent for chunk r0-/);
    expect(r.stderr).toContain("fix it and run the same command again to resume");
    expect(fake.batches).toHaveLength(0);
    const again = await runCli(args("req", 82));
    expect([0, 3]).toContain(again.code); // 3: the bench stub's labels mark its rates, not a failure of the resume
    expect(fake.batches).toHaveLength(1);
    expect(verdicts("req")).toBe(82);
  }, 120_000);

  it("a result file being downloaded: named, the results stay with the provider, the resume downloads them (not sent again)", async () => {
    await start();
    // an output file of ~300 KB (one stray result line, ignored and said), larger than the limit below
    fake.extraOutput = [JSON.stringify({ custom_id: "stray", response: { status_code: 200, body: { pad: "x".repeat(300_000) } } })];
    fake.hold = true;
    // sent and held: stopped once the batch exists (its state is on disk)
    const child = spawn(process.execPath, [CLI, ...args("dl", 5)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    const closed = new Promise<number | null>((ok) => child.on("close", ok));
    while (fake.batches.length === 0) await new Promise((r) => setTimeout(r, 10));
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    fake.hold = false;
    const r = await limited(100, args("dl", 5));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot write \S+\/batches\/fake\/r0-\S+\.output\.jsonl\.part: file too large \(a file-size limit\)\. The results of batch \S+ stay with the provider/);
    const again = await runCli(args("dl", 5));
    expect([0, 3]).toContain(again.code);
    expect(fake.batches).toHaveLength(1);
    expect(verdicts("dl")).toBe(5);
  }, 120_000);
});
