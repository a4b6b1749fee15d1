/**
 * A Ctrl-C in a resume's first seconds (the run's journals read back, then the pre-count over every input) used to
 * wait for both to end, then mark the run `interrupted` (a complete one included) and print figures called partial,
 * though nothing had been read or judged. Now the built CLI, sent a real SIGINT while it counts the inputs, exits 130
 * at once saying nothing was judged; the run's store.json is as the last invocation left it, and the next run resumes
 * cleanly.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { ROOT, SAMPLES } from "../helpers/paths.js";
import { loadCheck } from "../../src/run/before-reading.js";
import type { LabelOptions } from "../../src/run/label-options.js";

let tmp: string;
let big: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-before-reading-"));
  // many small files: the pre-count over them takes seconds, the window the signal is sent in
  big = path.join(tmp, "big");
  for (let d = 0; d < 40; d++) {
    const dir = path.join(big, `d${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(dir, `f${i}.json`), `{"n": ${i}}`);
  }
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Run the CLI; once its progress says the inputs are being counted, send it SIGINT (lines every 5 ms: the count of 40,000 files can end before a 0.1 s line, verifier 39). */
function interruptWhileCounting(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string; afterSignalMs: number; signalled: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args, "--progress", "lines", "--progress-interval", "0.005"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let sentAt = 0;
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => {
      stderr += d;
      if (!sentAt && /total not counted yet/.test(stderr)) {
        sentAt = performance.now();
        child.kill("SIGINT");
      }
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, afterSignalMs: sentAt ? performance.now() - sentAt : -1, signalled: sentAt > 0 });
    });
  });
}

const snapshot = (dir: string) => {
  const s = JSON.parse(fs.readFileSync(path.join(dir, "store.json"), "utf8"));
  return { label_state: s.label_state, inputs: s.inputs, judges: s.judges, last_invocation: s.last_invocation, counts: s.counts };
};

describe("Ctrl-C before label reads any input", () => {
  it("a complete run stays complete: exit 130 at once, nothing judged, and the same run resumes cleanly", async () => {
    const labels = path.join(tmp, "labels");
    const run = path.join(labels, "r");
    const first = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels, "--json"]);
    expect([0, 3]).toContain(first.code); // 3: the offline judge's caveat on these runs (no compliance found)
    const before = snapshot(run);
    expect(before.label_state.state).toBe("complete");
    const verdicts = fs.readFileSync(path.join(run, "verdicts.jsonl"), "utf8");

    // the resume is given one more input folder: its pre-count is what the signal stops
    const r = await interruptWhileCounting(["label", SAMPLES, big, "--run", "r", "--labels-dir", labels]);
    expect(r.signalled, r.stderr).toBe(true);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain("stopping: nothing has been read or judged yet; the run is left as it was");
    expect(r.stderr).toMatch(/stopped while counting the inputs, before any input was read: nothing was judged or stored by this invocation, and run "r" is as the last label invocation left it \(complete\)/);
    expect(r.stdout).not.toMatch(/INTERRUPTED/); // no summary of "partial" figures
    expect(snapshot(run)).toEqual(before); // not marked interrupted; the new input not recorded
    expect(fs.readFileSync(path.join(run, "verdicts.jsonl"), "utf8")).toBe(verdicts);
    expect(fs.existsSync(path.join(run, ".lock"))).toBe(false);

    const again = await runCli(["label", SAMPLES, "--run", "r", "--labels-dir", labels, "--json"]);
    expect(again.code, again.stderr).toBe(first.code);
    const s = JSON.parse(again.stdout);
    expect(s.this_run).toMatchObject({ judged: 0, skipped: 82 });
    expect(snapshot(run).label_state.state).toBe("complete");
  });

  it("a new run: nothing labelled yet, said so; --json prints the stop as an error of kind interrupted", async () => {
    const labels = path.join(tmp, "labels-new");
    const r = await interruptWhileCounting(["label", big, "--run", "n", "--labels-dir", labels, "--json"]);
    expect(r.signalled, r.stderr).toBe(true);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/run "n" is as it was \(nothing labelled yet\)/);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { exit_code: 130, kind: "interrupted" } });
    expect(snapshot(path.join(labels, "n")).label_state).toBeUndefined();
    expect(fs.readFileSync(path.join(labels, "n", "verdicts.jsonl"), "utf8")).toBe("");
  });
});

// verifier 39: the store keeps the load check for the summary's reads of its held verdicts (every 1,024), so a Ctrl-C
// while judging a run of more than 1,024 verdicts threw "nothing was judged or stored by this invocation" from the
// summary, after thousands were stored, and printed no summary
describe("Ctrl-C after label has read and judged", () => {
  it("the load check throws the stop only while the journals are read back, not once the open returned", () => {
    const ac = new AbortController();
    ac.abort();
    const opening = { done: false };
    const check = loadCheck({ signal: ac.signal, run: "r" } as unknown as LabelOptions, opening)!;
    expect(() => check()).toThrow(/stopped while reading back run "r"'s journals/);
    opening.done = true;
    expect(() => check()).not.toThrow();
  });

  it("a stop with more than 1,024 verdicts stored prints the partial summary, not the stop before any input", async () => {
    // the samples copied into 30 folders as f<i>.json (ids from the path, so each copy is its own trajectory): 2,460
    // trajectories; the signal goes once 1,100 verdicts are stored
    const many = path.join(tmp, "many");
    const files = (fs.readdirSync(SAMPLES, { recursive: true }) as string[]).filter((f) => f.endsWith(".json"));
    for (let k = 0; k < 30; k++) {
      fs.mkdirSync(path.join(many, `c${k}`), { recursive: true });
      files.forEach((f, i) => fs.copyFileSync(path.join(SAMPLES, f), path.join(many, `c${k}`, `f${i}.json`)));
    }
    const labels = path.join(tmp, "labels-many");
    const r = await new Promise<{ code: number | null; stderr: string; stdout: string; signalled: boolean }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "label", many, "--run", "m", "--labels-dir", labels, "--progress", "lines", "--progress-interval", "0.05"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      let signalled = false;
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => {
        stderr += d;
        const stored = [...stderr.matchAll(/verdicts stored ([\d,]+)/g)].map((m) => Number(m[1].replace(/,/g, "")));
        if (!signalled && stored.some((n) => n >= 1100)) {
          signalled = true;
          child.kill("SIGINT");
        }
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr, stdout, signalled });
      });
    });
    const stored = fs.readFileSync(path.join(labels, "m", "verdicts.jsonl"), "utf8").split("\n").filter(Boolean).length;
    // the run may end before the signal on a fast machine: then there is nothing to check
    if (!r.signalled || stored >= 30 * files.length) return;
    expect(stored).toBeGreaterThan(1024);
    expect(r.stderr).not.toMatch(/before any input was read/);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stdout).toMatch(/INTERRUPTED: the figures below are partial/);
    expect(r.stdout).toMatch(/verdicts stored/);
  }, 130_000);
});
