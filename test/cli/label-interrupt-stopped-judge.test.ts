/**
 * Ctrl-C after one judge had already stopped by its own error (nits12): `in_flight_when_stopped_by_judge` read 0 for
 * it although trajectories had been read for it and not stored. Now the interrupt's count stays what was in flight,
 * and a judge that had stopped says apart what it left un-judged because it had stopped (`left_by_stopped_judge`):
 * for every judge, in flight + left by its stop = read - stored. Checked against the stored verdicts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, startLabel } from "../helpers/held-label.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing reached the agent" });
let tmp: string;
let answers: FakeOpenAI;
let hangs: FakeOpenAI;
let refuses: FakeOpenAI;
let release!: () => void;
const held = new Promise<void>((ok) => (release = ok));

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-label-int3-"));
  answers = await startFakeOpenAI(() => completion(REPLY));
  hangs = await startFakeOpenAI(async () => {
    await held; // until the CLI has acknowledged the stop
    return completion(REPLY);
  });
  refuses = await startFakeOpenAI(() => apiError(401, "bad key"));
});
afterAll(async () => {
  release();
  await answers.close();
  await hangs.close();
  await refuses.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const jsonl = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

describe("label: Ctrl-C after a judge had stopped by its own error", () => {
  it("the stopped judge's un-judged trajectories are counted apart from those in flight, and the sums match the store", async () => {
    const judges = path.join(tmp, "judges.json");
    fs.writeFileSync(
      judges,
      JSON.stringify({
        judges: [
          { id: "quick", model: "m1", family: "openai", base_url: answers.url, concurrency: 2 },
          { id: "stuck", model: "m2", family: "mistral", base_url: hangs.url, concurrency: 2 },
          { id: "broken", model: "m3", family: "google", base_url: refuses.url, concurrency: 2 },
        ],
      }),
    );
    const labels = path.join(tmp, "labels");
    const run = path.join(labels, "i");
    const label = startLabel(["label", SAMPLES, "--judges", judges, "--run", "i", "--labels-dir", labels], release);
    // broken has stopped, the stuck judge holds its two requests at the server, the quick one has answered some
    while ((!/judge broken stopped/.test(label.stderr()) || answers.requests.length < 4 || hangs.requests.length < 2) && label.child.exitCode === null) await sleep(5);
    expect(await label.stop("SIGINT")).toBe(130);
    const stdout = label.stdout();

    const read = jsonl(path.join(run, "trajectories.jsonl")).map((r) => r.id as string);
    const verdicts = jsonl(path.join(run, "verdicts.jsonl"));
    const missing = (judge: string) => {
      const stored = new Set(verdicts.filter((v) => v.judge_id === judge).map((v) => v.trajectory_id as string));
      return read.filter((id) => !stored.has(id)).length;
    };
    expect(missing("broken")).toBeGreaterThan(2); // read for it after its stop, not only the requests that stopped it

    const thisRun = JSON.parse(fs.readFileSync(path.join(run, "summary.json"), "utf8")).this_run;
    const inFlight = thisRun.in_flight_when_stopped_by_judge as Record<string, number>;
    const left = thisRun.left_by_stopped_judge as Record<string, number>;
    expect(Object.keys(left)).toEqual(["broken"]); // only a judge that had stopped
    for (const j of ["quick", "stuck", "broken"]) expect(inFlight[j] + (left[j] ?? 0), j).toBe(missing(j));
    expect(inFlight.broken).toBe(0); // nothing of it was in flight: it had stopped
    expect(stdout).toContain(`; broken had stopped (its own error): ${left.broken} trajectories read for it left un-judged, not sent after its stop`);
  }, 120_000);
});
