/**
 * review s29: a summary.json the last label run did not write (it failed, was killed, is still running, or could not
 * write it) holds an earlier run's `mixed_configurations`: never shown as the run's, replaced by one warning saying
 * the check is not known.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireRunLock } from "../../src/store/lock.js";
import { readRunState, runStateLine, runStateNotes, runStateWarnings } from "../../src/store/run-state.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-run-state-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const STARTED = "2026-01-02T03:04:05.678Z";
const MIX = "judge j: its verdicts name 2 models (model-A, model-B): the run mixes configurations under one judge id";
const write = (labelState: Record<string, unknown> | null, summary: Record<string, unknown> | null) => {
  fs.writeFileSync(path.join(dir, "store.json"), JSON.stringify({ inputs: [], judges: [], counts: {}, stopped_judges: {}, extra: {}, created_at: STARTED, ...(labelState ? { label_state: labelState } : {}) }));
  if (summary) fs.writeFileSync(path.join(dir, "summary.json"), JSON.stringify(summary));
};
const ended = (state: string, started = STARTED) => ({ state, started_at: started, finished_at: "2026-01-02T04:00:00.000Z", pid: 999_999_999, host: os.hostname() });

describe("readRunState: mixed_configurations only from the last label run's own summary", () => {
  it("the run's summary (stamped with the last run's start) gives its list, as before", () => {
    write(ended("complete"), { mixed_configurations: [MIX], label_started_at: STARTED });
    expect(readRunState(dir).mixed_configurations).toEqual([MIX]);
    write(ended("complete"), { label_started_at: STARTED });
    expect(readRunState(dir).mixed_configurations).toEqual([]);
  });
  it("a summary of an older version (no stamp) after a run that ended is read as before", () => {
    write(ended("complete"), { mixed_configurations: [MIX] });
    expect(readRunState(dir).mixed_configurations).toEqual([MIX]);
    write(null, { mixed_configurations: [MIX] }); // no label_state at all
    expect(readRunState(dir).mixed_configurations).toEqual([MIX]);
  });
  it("a failed last run: the earlier summary's list is not shown, one warning says the check is not known and why", () => {
    for (const earlier of [[MIX], []]) {
      write(ended("failed"), { mixed_configurations: earlier, label_started_at: "2026-01-01T00:00:00.000Z" });
      const st = readRunState(dir);
      expect(st.status).toBe("failed");
      expect(st.mixed_configurations).toHaveLength(1);
      const w = st.mixed_configurations[0];
      expect(w).not.toContain(MIX);
      expect(w).toMatch(/^mixed configurations not known: the last label run failed \(2026-01-02T04:00:00\.000Z\) before writing its summary\.json, so whether each judge's verdicts in use were made by one model under one configuration is not checked/);
      expect(w).toContain(earlier.length ? "(1 warning(s) then)" : "(no judge mixed then)");
      expect(w).toMatch(/run the same label command again .*: its summary checks it$/);
      // said after the run-incomplete line, as a WARNING of its own
      expect(runStateLine(st)).toMatch(/^WARNING: run incomplete: the last label run failed .*\nWARNING: mixed configurations not known: /);
    }
  });
  it("a failed first run (no summary.json at all) says no summary holds the check", () => {
    write(ended("failed"), null);
    expect(readRunState(dir).mixed_configurations).toEqual([expect.stringMatching(/before writing its summary\.json, .*\(no summary\.json holds it\)/)]);
  });
  it("a killed last run (label_state left running by a dead process) is treated the same", () => {
    write({ state: "running", started_at: STARTED, pid: 999_999_999, host: os.hostname() }, { mixed_configurations: [MIX], label_started_at: "2026-01-01T00:00:00.000Z" });
    const st = readRunState(dir);
    expect(st.status).toBe("killed");
    expect(st.mixed_configurations).toEqual([expect.stringMatching(/^mixed configurations not known: the last label run ended without finishing \(killed or crashed\)/)]);
  });
  it("a run in progress: not known until it ends", () => {
    write(ended("complete"), { mixed_configurations: [MIX], label_started_at: STARTED });
    const release = acquireRunLock(dir);
    try {
      const st = readRunState(dir);
      expect(st.status).toBe("running");
      expect(st.mixed_configurations).toEqual([expect.stringMatching(/^mixed configurations not known: a label run is in progress .*read the run again when the label process has ended$/)]);
    } finally {
      release();
    }
  });
  it("a run that ended but left an earlier summary (it could not write its own: disk full) or none", () => {
    write(ended("complete"), { mixed_configurations: [], label_started_at: "2026-01-01T00:00:00.000Z" });
    const st = readRunState(dir);
    expect(st.status).toBe("complete");
    expect(st.mixed_configurations).toEqual([expect.stringMatching(/summary\.json is from an earlier label run \(started 2026-01-01T00:00:00\.000Z\): the last one \(started 2026-01-02T03:04:05\.678Z\) did not write its own/)]);
    fs.rmSync(path.join(dir, "summary.json"));
    expect(readRunState(dir).mixed_configurations).toEqual([expect.stringMatching(/the last label run \(started 2026-01-02T03:04:05\.678Z\) wrote no summary\.json/)]);
  });
});

describe("a last label pass with --limit (new user 30, M4)", () => {
  it("says the figures cover every stored verdict, not the limited pass's trajectories only", () => {
    fs.writeFileSync(
      path.join(dir, "store.json"),
      JSON.stringify({ inputs: [], judges: [], counts: { trajectories: 1048 }, stopped_judges: {}, extra: {}, created_at: STARTED, label_state: { ...ended("complete"), limit: 5 } }),
    );
    fs.writeFileSync(path.join(dir, "summary.json"), JSON.stringify({ label_started_at: STARTED }));
    const s = readRunState(dir);
    expect(s).toMatchObject({ status: "limited", complete: true });
    expect(s.message).toBe(
      "the last label run was limited to the first 5 trajectories of its inputs (--limit): these figures cover every verdict the run has stored (its 1,048 trajectories, from this and any earlier label run); input trajectories past the limit that no label run reached are not in them (run label again without --limit to label the rest)",
    );
    expect(s.message).not.toContain("cover those only");
    // in a report (estimate --human, compare): among the warnings, its prefix taken off (rev2a #1: a --limit pass after
    // files were added is a slice of the run), never "WARNING: note: ..."; only the moved-inputs note is kept apart (fixb54)
    const line = runStateLine(s);
    expect(line).toMatch(/^note: the last label run was limited/);
    expect(runStateWarnings(line)).toEqual([s.message]);
    expect(runStateNotes(line)).toEqual([]);
    expect(runStateWarnings("WARNING: run incomplete: x\nWARNING: judge j: y")).toEqual(["run incomplete: x", "judge j: y"]);
    expect(runStateNotes("WARNING: run incomplete: x\nWARNING: judge j: y")).toEqual([]);
    expect(runStateWarnings("note: input_removed: the 3 old ids moved\nWARNING: judge j: y")).toEqual(["judge j: y"]);
    expect(runStateNotes("note: input_removed: the 3 old ids moved\nWARNING: judge j: y")).toEqual(["input_removed: the 3 old ids moved"]);
    expect(runStateWarnings(null)).toEqual([]);
    expect(runStateNotes(null)).toEqual([]);
  });
});
