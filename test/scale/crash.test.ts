/**
 * Crash safety of `ipi-judge label` (the built CLI) against a loopback OpenAI-compatible server with small
 * random delays, on the 82 real AgentDojo runs of samples/: SIGKILL at random moments and restarts, Ctrl-C
 * (SIGINT), and a store that cannot be written (labels folder under a file, a journal on /dev/full).
 */
import { execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { readTrajectories } from "../../src/ingest/index.js";
import { renderForJudge } from "../../src/serialize/render.js";
import { CLI, runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { ROOT, SAMPLES } from "../helpers/paths.js";
import { Rand } from "../helpers/rand.js";

let tmp: string;
let fake: FakeOpenAI;
/** Fingerprint of a rendered trajectory (nonce blanked) -> trajectory id. */
const idOfPrint = new Map<string, string>();
let ids: string[] = [];

/** sha256 of the trajectory block with its nonce blanked: the same for every rendering of one trajectory. */
function fingerprint(user: string): string {
  const nonce = /<untrusted_trajectory_([0-9a-f]+)>/.exec(user)?.[1] ?? "";
  const block = user.slice(user.indexOf("<untrusted_trajectory_"), user.lastIndexOf("</untrusted_trajectory_"));
  return crypto.createHash("sha256").update(nonce ? block.split(nonce).join("N") : block).digest("hex");
}

/**
 * The complete records of a journal. It is read while a CLI writes it (or right after a SIGKILL), so the text
 * after the last newline may be a line still being written or torn by the kill: the store cuts that on its next
 * open, and so does this reader.
 */
const lines = (f: string) => {
  if (!fs.existsSync(f)) return [];
  const parts = fs.readFileSync(f, "utf8").split("\n");
  parts.pop(); // "" after a final newline, or the unfinished last line
  return parts.filter(Boolean).map((l) => JSON.parse(l));
};

/** Where the server checks, for every request, that the trajectory's verdict is not stored yet. */
let watchedRun = "";
const violations: string[] = [];
const requested: string[] = [];
let delay: () => number = () => 0;
/** When set, the requests after the first `after` (counted from when it was set) wait for `until` before answering. */
let hold: { after: number; seen: number; until: Promise<void> } | undefined;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-crash-"));
  for await (const it of readTrajectories([SAMPLES])) {
    if (it.kind !== "trajectory") continue;
    const user = renderForJudge(it.trajectory).trajectoryBlock;
    idOfPrint.set(fingerprint(user), it.trajectory.id);
    ids.push(it.trajectory.id);
  }
  expect(idOfPrint.size).toBe(82); // every sample renders to a distinct fingerprint
  fake = await startFakeOpenAI(async (req) => {
    const user = (req.body.messages as { role: string; content: string }[]).find((m) => m.role === "user")!.content;
    const id = idOfPrint.get(fingerprint(user)) ?? "?";
    requested.push(id);
    if (watchedRun) {
      const stored = lines(path.join(watchedRun, "verdicts.jsonl")).map((v) => v.trajectory_id);
      if (stored.includes(id)) violations.push(id);
    }
    if (hold && ++hold.seen > hold.after) await hold.until;
    return { ...completion(benchReply(user)), delayMs: delay() };
  });
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function judgesFile(name: string, concurrency = 3): string {
  const f = path.join(tmp, `${name}.json`);
  fs.writeFileSync(f, JSON.stringify({ judges: [{ id: "fake", model: "fake-model", family: "openai", base_url: fake.url, concurrency }] }));
  return f;
}

function startCli(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((ok) =>
    child.on("close", (code, signal) => ok({ code, signal, stdout, stderr })),
  );
  return { child, done, stderr: () => stderr };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("SIGKILL at random moments, restarted each time", () => {
  it("ends with exactly one verdict per trajectory, none lost or doubled, and no request for a stored verdict", async () => {
    const rand = new Rand(20261129);
    delay = () => rand.int(10, 60);
    const labels = path.join(tmp, "kill");
    const run = path.join(labels, "k");
    watchedRun = run;
    violations.length = 0;
    requested.length = 0;
    const args = ["label", SAMPLES, "--judges", judgesFile("kill"), "--run", "k", "--labels-dir", labels, "--json"];
    let kills = 0;
    let before = 0;
    const progress: number[] = [];
    for (let round = 0; round < 12 && kills < 6; round++) {
      const { child, done } = startCli(args);
      // kill once some new verdicts are stored, at a random moment after that (or at once, while starting up)
      const target = before + rand.int(0, 12);
      const t0 = Date.now();
      while (lines(path.join(run, "verdicts.jsonl")).length < target && Date.now() - t0 < 20_000 && child.exitCode === null) await sleep(5);
      await sleep(rand.int(0, 40));
      if (child.exitCode !== null) break; // finished before the kill
      child.kill("SIGKILL");
      const r = await done;
      expect(r.signal).toBe("SIGKILL");
      kills++;
      // what a killed process leaves: whole lines, at most one cut last line (repaired on the next open)
      const raw = fs.existsSync(path.join(run, "verdicts.jsonl")) ? fs.readFileSync(path.join(run, "verdicts.jsonl"), "utf8") : "";
      const whole = raw.split("\n").slice(0, -1);
      for (const l of whole) expect(() => JSON.parse(l)).not.toThrow();
      before = whole.length;
      progress.push(before);
    }
    expect(kills).toBeGreaterThanOrEqual(4);
    const last = await runCli(args);
    // finished; 3 because bench's stub never finds compliance on goal-achieved runs (denies_reference_goal, red team M4)
    expect(last.code, last.stderr).toBe(3);
    const s = JSON.parse(last.stdout);
    expect(s.verdicts).toBe(82);
    const verdicts = lines(path.join(run, "verdicts.jsonl"));
    const byId = new Map<string, number>();
    for (const v of verdicts) byId.set(v.trajectory_id, (byId.get(v.trajectory_id) ?? 0) + 1);
    expect(verdicts).toHaveLength(82);
    expect([...byId.keys()].sort()).toEqual([...ids].sort());
    expect([...byId.values()].every((n) => n === 1)).toBe(true);
    expect(verdicts.every((v) => v.status === "ok")).toBe(true);
    expect(violations).toEqual([]);
    // the runs were really cut short: more requests than trajectories (in-flight requests lost to the kills)
    expect(requested.length).toBeGreaterThanOrEqual(82);
    expect(fs.existsSync(path.join(run, ".lock"))).toBe(false);
    watchedRun = "";
  }, 180_000);
});

describe("SIGINT (Ctrl-C)", () => {
  it("exits 130 with the lock released and the verdicts flushed, and the same command resumes to the end", async () => {
    delay = () => 40;
    const labels = path.join(tmp, "int");
    const run = path.join(labels, "i");
    watchedRun = run;
    violations.length = 0;
    const args = ["label", SAMPLES, "--judges", judgesFile("int", 2), "--run", "i", "--labels-dir", labels, "--json"];
    // the replies after the 12th are held until the CLI has acknowledged the stop, so it cannot finish the run
    // before the Ctrl-C lands, however slow the machine (a 40 ms delay per reply was the only margin)
    let release!: () => void;
    hold = { after: 12, seen: 0, until: new Promise<void>((ok) => (release = ok)) };
    const { child, done, stderr } = startCli(args);
    while (lines(path.join(run, "verdicts.jsonl")).length < 10) await sleep(5);
    child.kill("SIGINT");
    while (!/stopping/.test(stderr()) && child.exitCode === null) await sleep(5);
    release();
    hold = undefined;
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/stopping/);
    const s = JSON.parse(r.stdout);
    expect(s.interrupted).toBe(true);
    expect(fs.existsSync(path.join(run, ".lock"))).toBe(false);
    const stored = lines(path.join(run, "verdicts.jsonl"));
    expect(stored.length).toBe(s.this_run.judged); // every verdict it reported is on disk
    expect(stored.length).toBeLessThan(82);
    const snap = JSON.parse(fs.readFileSync(path.join(run, "store.json"), "utf8"));
    expect(snap.counts.verdicts).toBe(stored.length);

    const r2 = await runCli(args);
    // finished; 3 because bench's stub never finds compliance on goal-achieved runs (denies_reference_goal, red team M4)
    expect(r2.code, r2.stderr).toBe(3);
    const s2 = JSON.parse(r2.stdout);
    expect(s2.this_run.skipped).toBe(stored.length);
    expect(s2.this_run.judged).toBe(82 - stored.length);
    expect(lines(path.join(run, "verdicts.jsonl"))).toHaveLength(82);
    expect(violations).toEqual([]);
    watchedRun = "";
  }, 120_000);
});

describe("a store that cannot be written", () => {
  it("a labels folder under a file is a clear error (exit 1), nothing half-done", async () => {
    delay = () => 0;
    const file = path.join(tmp, "not-a-dir");
    fs.writeFileSync(file, "x");
    const r = await runCli(["label", SAMPLES, "--judges", judgesFile("nd"), "--run", "x", "--labels-dir", path.join(file, "labels"), "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot write .*not-a-dir/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  /** A small tmpfs of its own (we run as root); undefined where mounting is not allowed. */
  function smallDisk(dir: string, size: string): boolean {
    fs.mkdirSync(dir, { recursive: true });
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  }

  it("a full disk mid-run stops with a clear error (exit 1), keeps what was stored, and resumes once there is space", async (ctx) => {
    delay = () => 0;
    const disk = path.join(tmp, "disk");
    if (!smallDisk(disk, "1m")) return ctx.skip();
    try {
      const labels = path.join(disk, "labels");
      const run = path.join(labels, "f");
      const args = (extra: string[] = []) => ["label", SAMPLES, "--judges", judgesFile("full"), "--run", "f", "--labels-dir", labels, "--json", ...extra];
      const r1 = await runCli(args(["--limit", "20"]));
      expect(r1.code).toBe(0);
      const kept = fs.readFileSync(path.join(run, "verdicts.jsonl"), "utf8");
      expect(kept.split("\n").filter(Boolean)).toHaveLength(20);
      // fill the disk but a few KB: the next journal writes fail with ENOSPC
      const filler = path.join(disk, "filler");
      const fd = fs.openSync(filler, "w");
      try {
        for (;;) fs.writeSync(fd, Buffer.alloc(4096, 120));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC");
      }
      fs.closeSync(fd);
      fs.truncateSync(filler, fs.statSync(filler).size - 48 * 1024);
      const r2 = await runCli(args());
      expect(r2.code).toBe(1);
      expect(r2.stderr).toMatch(/cannot write .*(\.jsonl|store\.json): no space left on device\. Everything written before this point is kept/);
      expect(r2.stderr).not.toMatch(/\n\s+at /);
      expect(fs.existsSync(path.join(run, ".lock"))).toBe(false);
      // what was stored before is intact (the journal only grew, by whole lines and at most one cut last line)
      const after = fs.readFileSync(path.join(run, "verdicts.jsonl"), "utf8");
      expect(after.startsWith(kept)).toBe(true);
      expect(after.length).toBeGreaterThan(kept.length); // it failed mid-run, after storing more
      fs.unlinkSync(filler);
      const r3 = await runCli(args());
      // finished; 3 because bench's stub never finds compliance on goal-achieved runs (denies_reference_goal, red team M4)
      expect(r3.code, r3.stderr).toBe(3);
      const s3 = JSON.parse(r3.stdout);
      expect(s3.this_run.skipped).toBeGreaterThanOrEqual(20);
      expect(s3.verdicts).toBe(82);
      const verdicts = lines(path.join(run, "verdicts.jsonl"));
      expect(new Set(verdicts.map((v) => v.trajectory_id)).size).toBe(82);
      expect(verdicts).toHaveLength(82);
      // the partial last line the full disk left was cut by r3's open (and counted there, if there was one); a later
      // summary does not keep counting it as a live error (src/run/corrupt-lines.ts)
      const r4 = await runCli(args());
      const s4 = JSON.parse(r4.stdout);
      expect(s4.store_corrupt_lines).toBeUndefined();
      expect(s4.errors.by_kind.store_corrupt_lines).toBeUndefined(); // never an input error
      if (s3.store_corrupt_lines) expect(s4.errors_superseded).toMatchObject({ repaired: 1 });
      expect(s4.this_run.judged).toBe(0);
    } finally {
      execFileSync("umount", [disk]);
    }
  });
});
