/**
 * A judge that crashed on most trajectories (errors.jsonl kind `judge_crash`, e.g. past --signature-time-limit) makes
 * `label` exit 3; the commands that read the run (agree, compare, estimate, committee, report) weigh its stored crashes
 * the same way (src/verdict/broken-judge.ts): their figures of it are over the few it did not crash on, so they exit
 * 3 naming it; a run's other judge that crashed is a warning only when the figures do not use it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Judge } from "../../src/judges/judge.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let labels: string;

/** The signature judge under another id, throwing on every trajectory but one in `keep` (a judge_crash of each). */
function crashingMostly(id: string, keep: number): Judge {
  const sig = createSignatureJudge({ id, workers: 0 });
  let n = 0;
  return {
    ...sig,
    async judge(t, ctx) {
      if (n++ % keep !== 0) throw new Error(`judge ${id} on ${t.id}: analysis took longer than the time limit`);
      return sig.judge(t, ctx);
    },
  };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-broken-crashes-"));
  labels = path.join(tmp, "labels");
  // "crashy" crashes on 3 of every 4 trajectories; "signature" judges every one
  const res = await labelRun({ inputs: [SAMPLES], run: "c", labelsDir: labels, judges: [crashingMostly("crashy", 4), createSignatureJudge({ workers: 0 })] });
  expect(res.progress.judge_crashes_by_judge?.crashy).toBeDefined();
  const summary = JSON.parse(fs.readFileSync(path.join(labels, "c", "summary.json"), "utf8"));
  const crashy = summary.judges.find((j: { judge_id: string }) => j.judge_id === "crashy");
  expect(crashy.judge_crashes / (crashy.judge_crashes + crashy.health.verdicts)).toBeGreaterThan(0.5);
}, 180_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const EXIT_LINE = (command: string) => new RegExp(`^ipi-judge: ${command} finished, but its figures use a judge that looks broken \\(crashy: it crashed on \\d+ trajectories against \\d+ verdicts \\(\\d+\\.\\d%: errors\\.jsonl kind judge_crash\\)\\): exit code 3$`, "m");

describe("a judge that crashed on most trajectories is a broken judge for every command reading the run", () => {
  it("its figures: exit 3 naming it and its crashes (agree, compare, estimate --table, committee, report)", async () => {
    for (const [command, args] of [
      ["agree", ["agree", "--reference", "security", "--judge", "crashy"]],
      ["compare", ["compare", "--by", "attack", "--judge", "crashy", "--bootstrap", "0"]],
      ["estimate", ["estimate", "--table", "--judge", "crashy", "--allow-low-coverage"]],
      ["committee", ["committee", "--bootstrap", "0"]],
      ["report", ["report", "--judge", "crashy", "--bootstrap", "0", "--out", path.join(tmp, "r.html")]],
    ] as const) {
      const r = await runCli([...args, "--run", "c", "--labels-dir", labels]);
      expect(r.code, `${command}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toMatch(EXIT_LINE(command));
    }
  }, 180_000);

  it("figures of the other judge only: exit 0, the crashing judge warned about", async () => {
    // (not agree --judge signature: its committee row, committee.jsonl written above, has crashy among its members)
    const r = await runCli(["compare", "--by", "attack", "--judge", "signature", "--bootstrap", "0", "--run", "c", "--labels-dir", labels]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^ipi-judge: warning: judge "crashy" of the run looks broken \(it crashed on \d+ trajectories against \d+ verdicts .*\), but the figures of compare here do not use it: not this command's failure$/m);
  }, 60_000);
});

describe("--where narrows the crashes weighed (task s40 #4): summary.json's counts are whole-run", () => {
  const KEEP = "gpt-4o-2024-05-13";
  beforeAll(async () => {
    // "picky" crashes on every trajectory of the other models: most of the run, none of KEEP's
    const sig = createSignatureJudge({ id: "picky", workers: 0 });
    const picky: Judge = {
      ...sig,
      async judge(t, ctx) {
        if (t.agent_model !== KEEP) throw new Error(`judge picky on ${t.id}: analysis took longer than the time limit`);
        return sig.judge(t, ctx);
      },
    };
    await labelRun({ inputs: [SAMPLES], run: "w", labelsDir: labels, judges: [picky] });
  }, 180_000);

  it("a --where selecting only rows the judge labelled: exit 0; the whole run or rows it crashed on too: exit 3, said over the rows --where selects", async () => {
    const agree = (...where: string[]) => runCli(["agree", "--reference", "security", "--judge", "picky", ...where, "--run", "w", "--labels-dir", labels]);
    const whole = await agree();
    expect(whole.code, whole.stderr).toBe(3);
    expect(whole.stderr).toMatch(/\(picky: it crashed on \d+ trajectories against \d+ verdicts \(\d+\.\d%: errors\.jsonl kind judge_crash\)\): exit code 3$/m);
    const kept = await agree("--where", `model=${KEEP}`);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stderr).not.toMatch(/crashed on/);
    // KEEP and one other model: 16 or so crashes against 20 verdicts is under half; two other models: over
    const mixed = await agree("--where", `model=${KEEP},gemini-1.5-pro-001,claude-3-5-sonnet-20240620`);
    expect(mixed.code, mixed.stderr).toBe(3);
    expect(mixed.stderr).toMatch(/\(picky: it crashed on \d+ trajectories against \d+ verdicts \(\d+\.\d%: errors\.jsonl kind judge_crash\), among the rows --where selects\): exit code 3$/m);
    // the same rule in the other commands that take --where
    for (const args of [
      ["compare", "--by", "attack", "--judge", "picky", "--bootstrap", "0"],
      ["estimate", "--table", "--judge", "picky", "--allow-low-coverage"],
      ["report", "--judge", "picky", "--bootstrap", "0", "--out", path.join(tmp, "w.html")],
    ]) {
      const r = await runCli([...args, "--where", `model=${KEEP}`, "--run", "w", "--labels-dir", labels]);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(0);
    }
  }, 180_000);

  it("the CSV's judge_caveat counts the crashes over the same rows as the exit code (task s41 #2: it counted the whole run's)", async () => {
    const MIXED = `model=${KEEP},gemini-1.5-pro-001,claude-3-5-sonnet-20240620`;
    const crash = /it crashed on (\d+) trajectories against (\d+) verdicts/;
    for (const args of [
      ["compare", "--by", "attack", "--judge", "picky", "--bootstrap", "0"],
      ["estimate", "--table", "--judge", "picky", "--allow-low-coverage"],
    ]) {
      const csv = path.join(tmp, `${args[0]}-w.csv`);
      const run = (...where: string[]) => runCli([...args, ...where, "--csv", csv, "--run", "w", "--labels-dir", labels]);
      // only rows the judge labelled: exit 0, and no crash in the CSV's caveat either
      const kept = await run("--where", `model=${KEEP}`);
      expect(kept.code, `${args[0]}: ${kept.stderr}`).toBe(0);
      expect(fs.readFileSync(csv, "utf8")).not.toMatch(/crashed on/);
      // rows it crashed on too: exit 3, and the CSV says the same counts, over the rows --where selects
      const mixed = await run("--where", MIXED);
      expect(mixed.code, `${args[0]}: ${mixed.stderr}`).toBe(3);
      const said = crash.exec(mixed.stderr)!;
      const file = fs.readFileSync(csv, "utf8");
      expect(crash.exec(file)?.slice(1)).toEqual(said.slice(1));
      expect(file).toMatch(/\(\d+\.\d%: errors\.jsonl kind judge_crash\), among the rows --where selects; its rates are over the verdicts it gave/);
      // the whole run: its counts, said without the --where words
      const whole = await run();
      expect(whole.code, `${args[0]}: ${whole.stderr}`).toBe(3);
      const all = fs.readFileSync(csv, "utf8");
      expect(crash.exec(all)?.slice(1)).toEqual(crash.exec(whole.stderr)!.slice(1));
      expect(all).not.toMatch(/among the rows --where selects/);
    }
  }, 180_000);
});
