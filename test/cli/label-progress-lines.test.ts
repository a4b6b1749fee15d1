/**
 * (vitest.config.ts sets IPI_JUDGE_PROGRESS=off for every test: these set their own.)
 * `label` with stderr piped (not a terminal): `--progress auto` writes plain progress lines to stderr at
 * `--progress-interval` (new user 29: a run under nohup or CI said nothing for an hour), `--progress off` writes
 * none, and stdout stays the summary (with --json: pure JSON).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-progress-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// while the inputs are counted (label reports once before its pre-count, so a long count is not silent), the
// documented line without a total: `0 (total not counted yet) trajectories ..., ETA --`
const LINE =
  /^ipi-judge: label: (\d[\d,]*\/82 trajectories \(\d+\.\d%\)|0 \(total not counted yet\) trajectories) after \S+, (--|[\d.]+)\/s, ETA \S+; verdicts stored \d+, already stored \d+, input errors \d+, judge crashes \d+, in flight \d+(, queued \d+)?$/;

describe("label's progress lines on a pipe", () => {
  it("auto on a pipe: lines at a tiny interval, each in the documented shape, stdout pure JSON", async () => {
    const labels = path.join(tmp, "a");
    const r = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels, "--json", "--progress-interval", "0.001"], { env: { IPI_JUDGE_PROGRESS: "" } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).this_run.judged).toBe(82);
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("ipi-judge: label:"));
    expect(progress.length).toBeGreaterThan(0);
    for (const l of progress) expect(l).toMatch(LINE);
    // plain lines: no carriage return or escape sequence of a bar
    expect(r.stderr).not.toMatch(/[\r\x1b]/);
  });

  it("--progress off: no progress line (the flag wins over IPI_JUDGE_PROGRESS)", async () => {
    const labels = path.join(tmp, "b");
    const r = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels, "--progress", "off", "--progress-interval", "0.001"], { env: { IPI_JUDGE_PROGRESS: "lines" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/this invocation: 82 trajectories read/);
    expect(r.stderr).not.toMatch(/ipi-judge: label:/);
  });

  it("a bad --progress or --progress-interval is a usage error (exit 2)", async () => {
    const labels = path.join(tmp, "d");
    const bad = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels, "--progress", "verbose"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--progress must be one of auto, bar, lines, off/);
    const badEnv = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels], { env: { IPI_JUDGE_PROGRESS: "loud" } });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toMatch(/IPI_JUDGE_PROGRESS must be one of auto, bar, lines, off, not "loud"/);
    const badInterval = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels, "--progress-interval", "0"]);
    expect(badInterval.code).toBe(2);
    expect(fs.existsSync(path.join(labels, "s"))).toBe(false);
  });
});

describe("the other commands' steps on a pipe", () => {
  it("agree at a tiny interval: its step's line in plain text; --progress off: none; stdout pure JSON", async () => {
    const labels = path.join(tmp, "e");
    expect((await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels, "--progress", "off"])).code).toBe(0);
    const args = ["agree", "--run", "s", "--labels-dir", labels, "--reference", "security", "--json"];
    const r = await runCli([...args, "--progress", "auto", "--progress-interval", "0.001"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).n_total).toBe(82);
    expect(r.stderr).toMatch(/^ipi-judge: comparing 1 judge\(s\) with the reference over 82 trajectories\.\.\.$/m);
    expect(r.stderr).not.toMatch(/[\r\x1b]/);
    const off = await runCli([...args, "--progress", "off", "--progress-interval", "0.001"], { env: { IPI_JUDGE_PROGRESS: "lines" } });
    expect(off.stderr).not.toMatch(/ipi-judge: comparing/);
  });
});
