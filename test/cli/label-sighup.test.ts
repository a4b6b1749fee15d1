/**
 * SIGHUP (an ssh session dropped) stops label as SIGTERM and Ctrl-C do (red team 37: it ended as kill -9 does, exit
 * 129 with the `.lock` left and no summary): the requests in flight finish, the run is saved as interrupted, exit 130.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { ROOT, SAMPLES } from "../helpers/paths.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing reached the agent" });
let tmp: string;
let fake: FakeOpenAI;
let release!: () => void;
const held = new Promise<void>((ok) => (release = ok));

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-label-hup-"));
  fake = await startFakeOpenAI(async (_req, n) => {
    if (n >= 3) await held;
    return completion(REPLY);
  });
});
afterAll(async () => {
  release();
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("label: SIGHUP", () => {
  it("is a stop: exit 130, the run saved as interrupted, no .lock left", async () => {
    const judges = path.join(tmp, "judges.json");
    fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "fake", model: "fake-model", family: "openai", base_url: fake.url, concurrency: 2 }] }));
    const labels = path.join(tmp, "labels");
    const run = path.join(labels, "h");
    const child = spawn(process.execPath, [CLI, "label", SAMPLES, "--judges", judges, "--run", "h", "--labels-dir", labels], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const done = new Promise<number | null>((ok) => child.on("close", (code) => ok(code)));
    while (fake.requests.length < 4 && child.exitCode === null) await sleep(5);
    child.kill("SIGHUP");
    while (!/stopping/.test(stderr) && child.exitCode === null) await sleep(5);
    release();
    expect(await done).toBe(130);
    expect(fs.existsSync(path.join(run, ".lock"))).toBe(false);
    const store = JSON.parse(fs.readFileSync(path.join(run, "store.json"), "utf8"));
    expect(store.label_state.state).toBe("interrupted");
    expect(fs.existsSync(path.join(run, "summary.json"))).toBe(true);
  }, 120_000);
});
