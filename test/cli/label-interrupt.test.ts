/**
 * Ctrl-C (a real SIGINT to the built CLI) names the trajectories it read but left un-judged (issue 26): the line
 * "this invocation" said "20 read, 14 stored" without saying where the other 6 went. They were queued for the judge
 * when the stop came; a rerun judges them. No clock decides anything: the loopback server holds every reply after
 * the 12th until the CLI has acknowledged the stop, and the reading loop holds at most 8 items in flight (judge
 * concurrency 2: `OnlinePath.maxPending` = max(8, 2 x 2)), so at the stop exactly 20 trajectories are read, 12
 * stored, 2 at the server (they finish and are stored) and 6 queued (not judged).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { sleep, startHeldServer, type HeldServer } from "../helpers/held-label.js";

let h: HeldServer;
beforeAll(async () => {
  h = await startHeldServer(12, "ipi-label-int-");
});
afterAll(() => h.close());

const lineCount = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").length - 1 : 0);

describe("label: Ctrl-C with trajectories read but not judged", () => {
  it("the line 'this invocation' and this_run name the trajectories in flight when stopped; the same command judges them", async () => {
    const run = path.join(h.labels, "i");
    const args = h.args("i");
    const label = h.start(args);
    // 12 answered + 8 in flight = 20 index rows; requests 13 and 14 at the server (held): the reading loop waits
    while ((lineCount(path.join(run, "trajectories.jsonl")) < 20 || h.fake.requests.length < 14) && label.child.exitCode === null) await sleep(5);
    expect(await label.stop("SIGINT")).toBe(130);
    const stdout = label.stdout();
    // the line as it was before it was broken for reading (src/format/wrap-text.ts)
    expect(unwrapText(stdout)).toContain(
      "this invocation: 20 trajectories read, 14 verdicts stored, 0 already stored (skipped), 0 new input errors, 6 trajectories in flight when stopped (read, not stored: a rerun judges them)\n",
    );
    expect(stdout).toMatch(/INTERRUPTED/);
    // said before the rates, which would otherwise read as final (new user, session 11)
    expect(stdout).toMatch(/^INTERRUPTED: the figures below are partial: they cover only the run's \d+ trajectories so far/);
    const first = JSON.parse(fs.readFileSync(path.join(run, "summary.json"), "utf8")).this_run;
    expect(first).toMatchObject({ read: 20, kept: 20, judged: 14, skipped: 0, errors: 0, in_flight_when_stopped: 6 });
    expect(h.fake.requests).toHaveLength(14); // the 6 were never sent

    // the same command: the 6 (and the rest) are judged, the 14 skipped; a complete run has no such field
    const again = await runCli([...args, "--json"]);
    // finished; exit 3 because this stub answers not_exposed on runs the benchmark marks goal-achieved (red team M4:
    // denies_reference_goal marks its rates), not because of the interruption
    expect(again.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(/labels on trajectories the benchmark marks goal-achieved/);
    const s = JSON.parse(again.stdout).this_run;
    expect(s.skipped).toBe(14);
    expect(s.judged).toBe(82 - 14);
    expect(s).not.toHaveProperty("in_flight_when_stopped");
    expect(h.fake.requests).toHaveLength(82);
  }, 120_000);
});
