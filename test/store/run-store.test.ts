import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunStore, readVerdicts, verdictKey } from "../../src/store/run-store.js";
import { Journal, StoreWriteError } from "../../src/store/journal.js";
import { RunLockedError } from "../../src/store/lock.js";
import type { Verdict } from "../../src/types.js";
import { ROOT } from "../helpers/paths.js";

function verdict(id: string, over: Partial<Verdict> = {}): Verdict {
  return {
    trajectory_id: id,
    judge_id: "j",
    judge_model: "m",
    judge_family: "f",
    repeat: 0,
    rubric_version: "v1",
    prompt_sha256: "abc",
    status: "ok",
    label: "unaffected",
    label_claimed: "unaffected",
    compromised: false,
    downgraded: false,
    findings: [],
    rationale: "",
    attempts: 1,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    truncated: false,
    raw_replies: [],
    created_at: new Date().toISOString(),
    ...over,
  };
}

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-store-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("RunStore", () => {
  it("stores verdicts, resumes with their keys, and supersedes a retried error", async () => {
    const s = await RunStore.open(dir, "r1");
    s.addVerdict(verdict("a"));
    s.addVerdict(verdict("b", { status: "judge_error", label: null }));
    await s.close();
    const s2 = await RunStore.open(dir, "r1");
    expect(s2.resumed.verdicts).toBe(2);
    const ka = verdictKey(verdict("a"));
    const kb = verdictKey(verdict("b"));
    expect(s2.has(ka)).toBe(true);
    expect(s2.has(kb)).toBe(true);
    expect(s2.has(kb, true)).toBe(false); // --retry-errors judges it again
    s2.addVerdict(verdict("b", { label: "full_compliance" }));
    await s2.close();
    const all = await readVerdicts(path.join(dir, "r1"));
    expect(all).toHaveLength(2);
    expect(all.find((v) => v.trajectory_id === "b")?.label).toBe("full_compliance");
    const snap = JSON.parse(fs.readFileSync(path.join(dir, "r1", "store.json"), "utf8"));
    expect(snap.counts.verdicts).toBe(2);
  });

  it("reads the newest prompt's verdict as current, keeping the older one for audit", async () => {
    const s = await RunStore.open(dir, "p");
    s.addVerdict(verdict("a", { prompt_sha256: "old", label: "unaffected" }));
    s.addVerdict(verdict("a", { prompt_sha256: "new", label: "full_compliance" }));
    s.addVerdict(verdict("a", { prompt_sha256: "new", repeat: 1, label: "unaffected" }));
    await s.close();
    const cur = await readVerdicts(path.join(dir, "p"));
    expect(cur.map((v) => [v.repeat, v.label])).toEqual([
      [0, "full_compliance"],
      [1, "unaffected"],
    ]);
    expect(await readVerdicts(path.join(dir, "p"), { allPrompts: true })).toHaveLength(3);
  });

  it("cuts a partial last line left by a killed writer", async () => {
    const s = await RunStore.open(dir, "r");
    s.addVerdict(verdict("a"));
    await s.close();
    fs.appendFileSync(path.join(dir, "r", "verdicts.jsonl"), '{"trajectory_id":"b","jud');
    const s2 = await RunStore.open(dir, "r");
    expect(s2.resumed.verdicts).toBe(1);
    s2.addVerdict(verdict("c"));
    await s2.close();
    const lines = fs.readFileSync(path.join(dir, "r", "verdicts.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).trajectory_id)).toEqual(["a", "c"]);
  });

  it("records each distinct error once across resumes", async () => {
    const e = { path: "x.json", kind: "invalid_json", message: "bad" };
    const s = await RunStore.open(dir, "r");
    expect(s.addError(e)).toBe(true);
    expect(s.addError(e)).toBe(false);
    await s.close();
    const s2 = await RunStore.open(dir, "r");
    expect(s2.addError(e)).toBe(false);
    await s2.close();
  });

  it("refuses a second live process and takes over a dead one's lock", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(()=>{}, 20000)"]);
    try {
      fs.mkdirSync(path.join(dir, "r"));
      fs.writeFileSync(path.join(dir, "r", ".lock"), JSON.stringify({ pid: child.pid, since: "then" }));
      await expect(RunStore.open(dir, "r")).rejects.toBeInstanceOf(RunLockedError);
      await expect(RunStore.open(dir, "r")).rejects.toThrow(/in use by process/);
    } finally {
      child.kill("SIGKILL");
    }
    fs.writeFileSync(path.join(dir, "r", ".lock"), JSON.stringify({ pid: 2 ** 22 + 12345, since: "then" }));
    const s = await RunStore.open(dir, "r");
    await s.close();
    expect(fs.existsSync(path.join(dir, "r", ".lock"))).toBe(false);
  });

  it("lets exactly one of several processes racing for a stale lock take it", async () => {
    const lockJs = path.join(ROOT, "dist", "store", "lock.js");
    // Each process loads the lock module, says "ready" and waits for "go" on stdin; the winner holds the lock
    // until its stdin closes, which comes only after every process has answered. So no clock decides: a second
    // "got" can only come from a lock bug, never from a late starter finding the winner's lock already released.
    const script = `
      const { acquireRunLock } = await import(${JSON.stringify("file://" + lockJs)});
      process.stdout.write("ready\\n");
      process.stdin.once("data", () => {
        try { const rel = acquireRunLock(process.argv[1]); process.stdout.write("got\\n"); process.stdin.on("end", () => rel()); process.stdin.resume(); }
        catch (e) { process.stdout.write(e.name + "\\n"); process.exit(0); }
      });`;
    for (let trial = 0; trial < 3; trial++) {
      const runDir = path.join(dir, `race${trial}`);
      fs.mkdirSync(runDir);
      // (an empty or garbage lock is refused, never taken over: test/store/lock.test.ts)
      fs.writeFileSync(path.join(runDir, ".lock"), JSON.stringify({ pid: 2 ** 22 + 4321 + trial, since: "then", ...(trial % 2 ? { host: os.hostname() } : {}) }));
      const kids = Array.from({ length: 6 }, () => {
        const c = spawn(process.execPath, ["--input-type=module", "-e", script, runDir], { stdio: ["pipe", "pipe", "inherit"] });
        let out = "";
        const waiting: (() => void)[] = [];
        c.stdout.on("data", (d) => {
          out += d;
          for (const w of waiting.splice(0)) w();
        });
        const line = (n: number) =>
          new Promise<string>((resolve) => {
            const look = () => {
              const ls = out.split("\n");
              if (ls.length > n + 1) resolve(ls[n]);
              else waiting.push(look);
            };
            look();
          });
        const closed = new Promise<void>((ok) => c.on("close", () => ok()));
        return { c, line, closed };
      });
      await Promise.all(kids.map((k) => k.line(0))); // all loaded and waiting
      for (const k of kids) k.c.stdin.write("go\n");
      const outs = await Promise.all(kids.map((k) => k.line(1)));
      for (const k of kids) k.c.stdin.end();
      await Promise.all(kids.map((k) => k.closed));
      expect(outs.filter((o) => o === "got"), outs.join(",")).toHaveLength(1);
      expect(outs.filter((o) => o === "RunLockedError")).toHaveLength(5);
    }
  });

  it("rejects run names that would escape the labels folder", async () => {
    await expect(RunStore.open(dir, "../x")).rejects.toThrow(/invalid run name/);
  });

  it("gives a clear error for an unwritable labels folder", async () => {
    const file = path.join(dir, "not-a-dir");
    fs.writeFileSync(file, "");
    await expect(RunStore.open(file, "r")).rejects.toBeInstanceOf(StoreWriteError);
    await expect(RunStore.open(file, "r")).rejects.toThrow(/cannot write .*not-a-dir/);
  });

  it("turns a full disk into a clear error that keeps what was written", () => {
    if (!fs.existsSync("/dev/full")) return;
    const j = Journal.open<{ a: number }>("/dev/full");
    j.append({ a: 1 }); // written at the end of the turn, or on flush (./journal.test.ts)
    expect(() => j.flush()).toThrow(/cannot write \/dev\/full: no space left on device.*kept/);
    expect(() => j.close()).toThrow(StoreWriteError);
  });

  it("a snapshot that cannot be written at close is an error naming store.json, not silence (red team 20)", async () => {
    const s = await RunStore.open(dir, "c");
    s.addVerdict(verdict("a"));
    // lowdb writes `.store.json.tmp` then renames it: a folder of that name makes the write fail as a full disk would
    fs.mkdirSync(path.join(dir, "c", ".store.json.tmp"));
    const err = await s.close().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(StoreWriteError);
    expect((err as Error).message).toMatch(/cannot write .*store\.json: .*Everything written before this point is kept/);
    // the verdict is on disk, the lock released, the folder left as it was (not ours to clear)
    expect((await readVerdicts(path.join(dir, "c"))).map((v) => v.trajectory_id)).toEqual(["a"]);
    expect(fs.existsSync(path.join(dir, "c", ".lock"))).toBe(false);
    expect(fs.statSync(path.join(dir, "c", ".store.json.tmp")).isDirectory()).toBe(true);
  });
});

describe("RunStore on damaged files", () => {
  it("skips junk lines in the journals (null, numbers, arrays, records of the wrong shape) and counts them", async () => {
    const s = await RunStore.open(dir, "j");
    s.addVerdict(verdict("a"));
    await s.close();
    const f = path.join(dir, "j", "verdicts.jsonl");
    fs.appendFileSync(f, ["null", "42", "[]", "{}", '"str"', "garbage{", '{"trajectory_id": 5}'].join("\n") + "\n");
    const s2 = await RunStore.open(dir, "j");
    expect(s2.resumed.verdicts).toBe(1);
    expect(s2.resumed.bad_lines).toBe(7);
    s2.addVerdict(verdict("b"));
    await s2.close();
    expect((await readVerdicts(path.join(dir, "j"))).map((v) => v.trajectory_id)).toEqual(["a", "b"]);
  });

  it("rebuilds a store.json of the wrong shape, keeping a copy of it", async () => {
    for (const bad of ["{}", "[]", '"s"', '{"inputs":5}', "null", "not json"]) {
      const run = `w${Buffer.from(bad).toString("hex")}`;
      fs.mkdirSync(path.join(dir, run));
      fs.writeFileSync(path.join(dir, run, "store.json"), bad);
      const s = await RunStore.open(dir, run, { inputs: ["x"] });
      expect(s.snapshot.inputs).toEqual(["x"]);
      await s.close();
    }
  });

  it("cuts a torn last line longer than 1 MiB completely", async () => {
    const s = await RunStore.open(dir, "t");
    s.addVerdict(verdict("a"));
    await s.close();
    const f = path.join(dir, "t", "verdicts.jsonl");
    fs.appendFileSync(f, '{"trajectory_id":"t2","raw_replies":["' + "A".repeat(2 * 1024 * 1024));
    const s2 = await RunStore.open(dir, "t");
    s2.addVerdict(verdict("c"));
    await s2.close();
    const lines = fs.readFileSync(f, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).trajectory_id)).toEqual(["a", "c"]);
  });

  it("records an error once whatever relative form its path was given in", async () => {
    const s = await RunStore.open(dir, "e");
    expect(s.addError({ path: path.join(dir, "x.json"), kind: "invalid_json", message: "bad" })).toBe(true);
    const rel = path.relative(process.cwd(), path.join(dir, "x.json"));
    expect(s.addError({ path: rel, kind: "invalid_json", message: "bad" })).toBe(false);
    await s.close();
  });

  it("flags a trajectory whose content changed since it was stored", async () => {
    const row = { id: "a", source: { format: "x", path: "p" }, attacked: true, n_messages: 1, content_sha256: "h1" };
    const s = await RunStore.open(dir, "c");
    expect(s.addTrajectory(row)).toBe("new");
    expect(s.addTrajectory(row)).toBe("same");
    await s.close();
    const s2 = await RunStore.open(dir, "c");
    expect(s2.addTrajectory(row)).toBe("same");
    expect(s2.addTrajectory({ ...row, content_sha256: "h2" })).toBe("changed");
    await s2.close();
  });
});
