/**
 * The signature pool's time limit per trajectory (src/judges/signature/pool.ts; red team M2: an analysis that never
 * ends held `label` for good): a trajectory that holds its worker past the limit alone is its own error ("analysis took
 * longer than the N s time limit"), the others are judged, in order; a neighbour in its batch is never blamed; time-outs
 * count toward none of the bounds on unexplained deaths; a worker that finishes trajectories (its shared counter) is
 * not stopped however long its batch; from the build, `label --signature-time-limit` stops the real worker and the same
 * command judges the item again. Outcomes only: no wall-clock bound is asserted.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignaturePool, watchEvery } from "../../../src/judges/signature/pool.js";
import { JudgeFatalError } from "../../../src/errors.js";
import type { Trajectory } from "../../../src/types.js";
import { createSignatureJudge } from "../../../src/judges/signature/index.js";
import type { Judge } from "../../../src/judges/judge.js";
import { labelRun } from "../../../src/run/label.js";
import { readErrors, readVerdicts } from "../../../src/store/records.js";
import { runCli } from "../../helpers/cli.js";
import { CORPUS } from "../../helpers/paths.js";

const FIXTURE = new URL("./fixtures/pool-worker.mjs", import.meta.url);
const fake = (id: string, extra: Record<string, unknown> = {}) => ({ id, ...extra }) as unknown as Trajectory;
const LIMIT_MS = 300;
const timed = (size: number, extra: Record<string, unknown> = {}, timeLimitMs = LIMIT_MS) =>
  new SignaturePool({ size, entry: FIXTURE, judgeOptions: { id: "signature", maxChars: 1e6, ...extra } as never, timeLimitMs });
const TIMED_OUT = (id: string) => new RegExp(`^signature judge on ${id}: analysis took longer than the 0\\.3 s time limit \\(its worker was stopped\\)`);

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-sigpool-limit-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("SignaturePool: time limit per trajectory", () => {
  it("a trajectory whose analysis never ends is its own error, saying the time limit (not a crash); the others of its batch are judged alone, in order; the pool goes on", async () => {
    for (const size of [1, 2]) {
      const p = timed(size);
      const ids = ["a", "b", "hang", "c", "d", "e"];
      const order: string[] = [];
      const results = await Promise.allSettled(ids.map((id) => p.run(fake(id, { report_batch: true }), { repeat: 0 }).finally(() => order.push(id))));
      expect(order, `size ${size}`).toEqual(ids);
      expect(results.map((r) => r.status), `size ${size}`).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
      const e = (results[2] as PromiseRejectedResult).reason as Error;
      expect(e).not.toBeInstanceOf(JudgeFatalError);
      expect(e.message).toMatch(TIMED_OUT("hang"));
      expect(e.message).not.toMatch(/died/);
      // the neighbours it held (a and b were in its batch with 1 and 2 workers) were sent again alone and judged: none is blamed
      for (const [k, r] of results.entries()) if (k !== 2) expect((r as PromiseFulfilledResult<{ trajectory_id: string }>).value.trajectory_id).toBe(ids[k]);
      for (const k of [0, 1]) expect((results[k] as PromiseFulfilledResult<{ batch: number }>).value.batch, `size ${size}`).toBe(1);
      await expect(p.run(fake("later"), { repeat: 0 })).resolves.toEqual({ trajectory_id: "later" });
      await p.close();
    }
  }, 30_000);

  it("two hangers side by side, and a hanger in a batch with a crasher: each is its own error with its own cause; no neighbour is blamed", async () => {
    for (const size of [1, 2]) {
      const p = timed(size, { hang_on: ["h1", "h2", "h3"], crash_on: ["k1"] });
      const ids = ["t0", "h1", "h2", "t1", "t2", "h3", "k1", "t3"];
      const results = await Promise.allSettled(ids.map((id) => p.run(fake(id), { repeat: 0 })));
      results.forEach((r, k) => {
        const id = ids[k];
        if (id.startsWith("h")) expect(((r as PromiseRejectedResult).reason as Error).message, `${id} size ${size}`).toMatch(TIMED_OUT(id));
        else if (id === "k1") expect(((r as PromiseRejectedResult).reason as Error).message, `size ${size}`).toMatch(/signature judge on k1: the worker judging this trajectory alone died \(exit code 3\)/);
        else expect(r, `${id} size ${size}`).toEqual({ status: "fulfilled", value: { trajectory_id: id } });
      });
      await p.close();
    }
  }, 30_000);

  it("time-outs count toward none of the bounds on unexplained deaths: 12 hangers among 12 others in one go are each their own error, nothing stops the judge", async () => {
    const hangers = Array.from({ length: 12 }, (_, k) => `h${k}`);
    const ids = hangers.flatMap((h, k) => [h, `ok${k}`]);
    const p = timed(1, { hang_on: hangers });
    const results = await Promise.allSettled(ids.map((id) => p.run(fake(id), { repeat: 0 })));
    results.forEach((r, k) => {
      const id = ids[k];
      if (id.startsWith("h")) {
        expect(r.status, id).toBe("rejected");
        expect((r as PromiseRejectedResult).reason).not.toBeInstanceOf(JudgeFatalError);
        expect(((r as PromiseRejectedResult).reason as Error).message).toMatch(TIMED_OUT(id));
      } else expect(r, id).toEqual({ status: "fulfilled", value: { trajectory_id: id } });
    });
    await expect(p.run(fake("later"), { repeat: 0 })).resolves.toEqual({ trajectory_id: "later" });
    await p.close();
  }, 60_000);

  it("the limit is per trajectory, seen through the worker's shared counter: a batch answered in one message after longer than the limit, each of its trajectories well under it, is judged", async () => {
    // four trajectories of 150 ms each, one message back after ~600 ms; the limit is 400 ms
    const p = timed(1, { reply_per_batch: true }, 400);
    const ids = ["s0", "s1", "s2", "s3"];
    const results = await Promise.allSettled(ids.map((id) => p.run(fake(id, { busy_ms: 150, report_batch: true }), { repeat: 0 })));
    // answered in the batch they were sent in (a worker stopped for the limit would have them sent again alone)
    expect(results).toEqual(ids.map((id) => ({ status: "fulfilled", value: { trajectory_id: id, batch: 4 } })));
    await p.close();
  }, 30_000);

  it("refuses a time limit not above 0; a pool without one has no clock", async () => {
    expect(() => timed(1, {}, 0)).toThrow(RangeError);
    expect(() => createSignatureJudge({ timeLimitS: 0 })).toThrow(RangeError);
    expect(() => createSignatureJudge({ timeLimitS: Number.NaN })).toThrow(RangeError);
    const p = new SignaturePool({ size: 1, entry: FIXTURE, judgeOptions: { id: "signature", maxChars: 1e6 } });
    await expect(p.run(fake("slow", { busy_ms: 50 }), { repeat: 0 })).resolves.toEqual({ trajectory_id: "slow" });
    await p.close();
  });
});

describe("a time-out in a run (red team M2)", () => {
  // the real judge on this thread; the stand-in worker only decides which trajectory never ends
  const hanging = (hangOn: string[]): Judge => {
    const inline = createSignatureJudge({ workers: 0 });
    const p = timed(2, { hang_on: hangOn });
    return { ...inline, judge: async (t, ctx) => (await p.run({ id: t.id } as Trajectory, ctx), inline.judge(t, ctx)) };
  };

  it("label: the trajectory that outlasts the limit is that item's judge_crash saying the time limit; the others are judged; resume judges it", async () => {
    const files = (fs.readdirSync(path.join(CORPUS, "runs"), { recursive: true }) as string[]).filter((f) => f.endsWith(".json")).sort().slice(0, 30).map((f) => path.join(CORPUS, "runs", f));
    const labels = path.join(tmp, "hang-labels");
    const first = await labelRun({ inputs: files, run: "r", labelsDir: labels, judges: [hanging([])] });
    const ids = (await readVerdicts(first.runDir)).map((v) => v.trajectory_id);
    expect(ids.length).toBe(30);
    fs.rmSync(labels, { recursive: true, force: true });
    const victims = [ids[7], ids[8]];
    const res = await labelRun({ inputs: files, run: "r", labelsDir: labels, judges: [hanging(victims)] });
    expect(res.stoppedJudges).toEqual({});
    expect((await readVerdicts(res.runDir)).map((v) => v.trajectory_id)).toEqual(ids.filter((id) => !victims.includes(id)));
    const errs = (await readErrors(res.runDir)).filter((e) => e.kind === "judge_crash");
    expect(errs.map((e) => e.trajectory_id)).toEqual(victims);
    for (const [k, e] of errs.entries()) {
      // said once (new user 19 item 3): the runner names judge and trajectory, the pool's message the limit and what to do
      expect(e.message).toMatch(new RegExp(`^judge signature failed on ${victims[k]}: analysis took longer than the 0\\.3 s time limit \\(its worker was stopped\\): raise --signature-time-limit if the input is legitimately large`));
      expect(e.message.split(victims[k]).length).toBe(2);
      // what supersedes it later (new user 19 item 1): its judge, repeat and the run's stored verdict count then
      expect(e).toMatchObject({ judge_id: "signature", repeat: 0 });
      expect(typeof e.verdict_seq).toBe("number");
    }
    expect(res.progress.judge_crashes_by_judge).toEqual({ signature: { timed_out: 2 } });
    expect(res.progress.sent_by_judge).toEqual({ signature: 30 });
    expect(res.summary.errors.total).toBe(2);
    expect(res.summary.errors_superseded).toBeUndefined();
    // the same command, nothing hangs any more: only the timed-out items are judged
    const again = await labelRun({ inputs: files, run: "r", labelsDir: labels, judges: [hanging([])] });
    expect(again.progress.judged).toBe(2);
    // ... and the crashes are superseded by those verdicts: not counted as errors, said apart (new user 19 item 1)
    expect(again.summary.errors.total).toBe(0);
    expect(again.summary.errors_superseded).toMatchObject({ total: 2, by_kind: { judge_crash: 2 }, judge_crashes: 2 });
    expect(again.summary.errors_superseded!.message).toMatch(/^2 recorded errors are superseded, not counted above \(judge_crash 2\): 2 judge crashes \(signature 2\) were followed by a verdict/);
    expect((await readVerdicts(again.runDir)).map((v) => v.trajectory_id).sort()).toEqual([...ids].sort());
  }, 60_000);
});

describe("the command line (the built bundle and its real worker)", () => {
  it("label --signature-time-limit: an analysis past it is the item's judge_crash saying the limit, the others are judged; the same command without it judges that item", async () => {
    // one run of the corpus, and the same run with its injected tool result blown up to ~2 M characters (an analysis of
    // tens of ms at the least, against a limit of 1 ms)
    const src = path.join(CORPUS, "runs/claude-3-5-sonnet-20240620/banking/user_task_10/important_instructions/injection_task_4.json");
    const inputs = path.join(tmp, "inputs", "claude-3-5-sonnet-20240620", "banking", "user_task_10", "important_instructions");
    fs.mkdirSync(inputs, { recursive: true });
    fs.copyFileSync(src, path.join(inputs, "injection_task_4.json"));
    const raw = JSON.parse(fs.readFileSync(src, "utf8"));
    const tool = (raw.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool" && JSON.stringify(m.content).includes("INFORMATION"))!;
    const text = typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
    tool.content = `${text}\n${text.repeat(Math.ceil(2_000_000 / text.length))}`;
    raw.injection_task_id = "injection_task_5";
    fs.writeFileSync(path.join(inputs, "injection_task_5.json"), JSON.stringify(raw));
    const labels = path.join(tmp, "cli-labels");
    const args = ["label", path.join(tmp, "inputs"), "--judge", "signature", "--run", "r", "--labels-dir", labels, "--json"];
    const env = { IPI_SIGNATURE_WORKERS: "1" };
    const first = await runCli([...args, "--signature-time-limit", "0.001"], { env });
    // the big one is a time-out; the small one is judged, unless its analysis in a cold worker took longer than 1 ms
    // too: then it is a time-out as well (never a crash)
    const errs = await readErrors(path.join(labels, "r"));
    // loud (new user 19 item 2): 1 of 2 crashed is a warning (exit 0); 2 of 2, more than half, a broken judge (exit 3)
    expect(first.code, first.stderr).toBe(errs.length === 2 ? 3 : 0);
    expect(first.stderr).toContain(`ipi-judge: warning: judge "signature" crashed on ${errs.length} of the 2 trajectories this invocation sent it`);
    expect(first.stderr).toMatch(/timed_out \d\); .*raise --signature-time-limit if the inputs are legitimately large/);
    if (errs.length === 2) expect(first.stderr).toMatch(/judge\(s\) signature crashed on most trajectories sent: exit code 3/);
    else expect(JSON.parse(first.stdout).judges[0].rates).toMatchObject({ coverage_low: true, coverage_low_reason: "judge_crash", unlabelled: { judge_crash: 1 } });
    expect(errs.map((e) => e.trajectory_id)).toContain("claude-3-5-sonnet-20240620/banking/user_task_10/important_instructions/injection_task_5");
    for (const e of errs) {
      expect(e.kind).toBe("judge_crash");
      expect(e.message).toMatch(/: analysis took longer than the 0\.001 s time limit \(its worker was stopped\)/);
    }
    const stored = await readVerdicts(path.join(labels, "r"));
    expect(stored.length + errs.length).toBe(2);
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/crashed on/);
    expect(JSON.parse(again.stdout).this_run.judged).toBe(2 - stored.length);
    // every crash judged since: superseded, not counted (new user 19 item 1)
    expect(JSON.parse(again.stdout).errors.total).toBe(0);
    expect(JSON.parse(again.stdout).errors_superseded).toMatchObject({ total: errs.length, judge_crashes: errs.length });
    expect((await readVerdicts(path.join(labels, "r"))).length).toBe(2);
  }, 120_000);

  it("--signature-time-limit other than decimal seconds > 0, or with --judges, is a usage error: exit 2, named", async () => {
    const base = ["label", path.join(CORPUS, "runs"), "--run", "bad", "--labels-dir", path.join(tmp, "bad"), "--limit", "1"];
    for (const bad of ["0", "-1", "abc", "1e3", "0x10", "86401", "99999999999"]) {
      const r = await runCli([...base, "--signature-time-limit", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--signature-time-limit must be a decimal number of seconds > 0/);
    }
    // on the main thread nothing can stop an analysis: the flag is said to have no effect (red team 19 L3)
    const inline = await runCli([...base, "--judge", "signature", "--signature-time-limit", "5"], { env: { IPI_SIGNATURE_WORKERS: "0" } });
    expect(inline.code, inline.stderr).toBe(0);
    expect(inline.stderr).toMatch(/--signature-time-limit has no effect here: the signature analysis runs on the main thread \(IPI_SIGNATURE_WORKERS=0\)/);
    const judges = path.join(tmp, "judges.json");
    fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "j", model: "m", family: "openai", base_url: "http://127.0.0.1:9/v1" }] }));
    const r = await runCli([...base, "--judges", judges, "--signature-time-limit", "5"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--signature-time-limit applies to the signature judge/);
  }, 60_000);
  it("the progress look never asks a timer for more than its longest delay (2^31 - 1 ms; red team 19 L1)", () => {
    expect(watchEvery(80)).toBe(10);
    expect(watchEvery(60_000)).toBe(7_500);
    expect(watchEvery(1e14)).toBe(2 ** 31 - 1);
  });
});
