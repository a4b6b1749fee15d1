/**
 * The other run of `view --other` (src/view/other-run.ts `loadOtherRun`): only its labels per id, judges, warnings
 * and judges' health are kept, and each must be what the whole run loaded by `loadViewRun` gave (what the view
 * showed of the other run before). Small run folders written here: an id in both runs, an id only in the main run
 * (no other-run labels), an id only in the other run, an index row without verdicts, a verdict without an index row,
 * a verdict on an older text (left out, counted per judge), a second repeat, a crash (one judged since), a stale
 * committee file, a line that is not JSON; with and without a superseded verdict (the counted health, and the load
 * of the whole run it falls back to).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonl, sha, verdict } from "./run-fixture.js";
import { loadViewRun } from "../../src/view/run-data.js";
import { loadOtherRun } from "../../src/view/other-run.js";
import { viewJudgeHealth } from "../../src/view/judge-health.js";

let tmp: string;
const row = (id: string) => ({ id, content_sha256: sha(id), attacked: true, agent_model: "m", attack: "a", reference: { security: id.length % 2 === 0 } });

/** Write a run folder; `supersede` adds later verdicts of keys already judged. */
function writeRun(dir: string, kind: "main" | "other", supersede = false): void {
  fs.mkdirSync(dir, { recursive: true });
  if (kind === "main") {
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), jsonl(["t1", "t2", "t3", "main-only", "t5"].map(row)));
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), jsonl(["t1", "t2", "t3", "main-only", "t5"].map((id) => verdict(id, "a", "unaffected"))));
    return;
  }
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), jsonl([...["t1", "t2", "t3", "no-verdicts", "t5", "other-only"].map(row), "not json"]));
  const vs: unknown[] = [
    verdict("t1", "b", "full_compliance"),
    verdict("t1", "c", "unaffected"),
    verdict("t1", "b", "refusal", { repeat: 1 }),
    verdict("t2", "b", "unaffected"),
    verdict("t2", "c", "full_compliance", { content_sha256: sha("an older text") }), // stale: left out, counted
    verdict("t3", "c", null), // a judge error
    verdict("t5", "c", "unaffected"),
    verdict("t5", "b", "partial_compliance"),
    verdict("orphan", "b", "unaffected"), // no index row
    verdict("other-only", "c", "full_compliance"),
    "{broken",
  ];
  // later lines of keys judged already: the labels of t5 then in the order of its current verdicts (c after b)
  if (supersede) vs.push(verdict("t5", "c", "full_compliance"), verdict("t1", "b", "refusal", { repeat: 1 }));
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), jsonl(vs));
  const crash = { path: "x.json", kind: "judge_crash", message: "judge c failed: boom", judge_id: "c", repeat: 0, verdict_seq: 5 };
  fs.writeFileSync(path.join(dir, "errors.jsonl"), jsonl([{ ...crash, trajectory_id: "no-verdicts" }, { ...crash, trajectory_id: "t1" }]));
  // a committee of b alone, over t1 only: stale (c labelled after it, trajectories missing)
  fs.writeFileSync(path.join(dir, "committee.jsonl"), jsonl([{ trajectory_id: "t1", label: "full_compliance", status: "ok", votes: { b: "full_compliance" }, committee_judges: ["b"], excluded_judges: [], quorum: 1 }]));
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-other-"));
  writeRun(path.join(tmp, "main"), "main");
  // two copies of each other run: a journal's warnings are said once per process, so each loader reads its own
  for (const copy of ["x", "y"]) {
    writeRun(path.join(tmp, copy, "other"), "other");
    writeRun(path.join(tmp, copy, "superseded"), "other", true);
  }
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const IDS = ["t1", "t2", "t3", "main-only", "t5", "no-verdicts", "orphan", "other-only", "absent"];

describe.each(["other", "superseded"])("loadOtherRun (%s)", (name) => {
  it("holds what the whole run loaded by loadViewRun gave: labels per id (in key order), judges, warnings, health", async () => {
    const main = await loadViewRun(path.join(tmp, "main"));
    const other = await loadOtherRun(path.join(tmp, "x", name), { main: main.ids });
    const whole = await loadViewRun(path.join(tmp, "y", name));
    expect(other.name).toBe(name);
    expect(other.judges).toEqual(whole.judges);
    for (const id of IDS) expect(JSON.stringify(other.labelsOf(id)), id).toBe(JSON.stringify(whole.byId.get(id)?.labels));
    const unpath = (ws: string[], copy: string) => ws.map((w) => w.split(path.join(tmp, copy)).join("DIR"));
    expect(unpath(other.warnings, "x")).toEqual(unpath(whole.warnings, "y"));
    expect(other.warnings.some((w) => /1 trajectories have verdicts but no row/.test(w))).toBe(true);
    expect(other.warnings.some((w) => /^committee\.jsonl is stale, not shown/.test(w))).toBe(true);
    const h = await other.judgeHealth();
    const ref = await viewJudgeHealth(whole);
    expect(unpath(h.banners.flatMap((b) => b.lines), "x")).toEqual(unpath(ref.banners.flatMap((b) => b.lines), "y"));
    expect(h.banners.map((b) => [b.judge_id, b.level, b.health])).toEqual(ref.banners.map((b) => [b.judge_id, b.level, b.health]));
    expect([...h.crashes]).toEqual([...ref.crashes]);
  });

  it("an id only in the main run has no other-run labels; one only in the other run, an orphan and a row without verdicts do", async () => {
    const main = await loadViewRun(path.join(tmp, "main"));
    const other = await loadOtherRun(path.join(tmp, "x", name), { main: main.ids });
    expect(other.labelsOf("main-only")).toBeUndefined();
    expect(other.labelsOf("absent")).toBeUndefined();
    expect(other.labelsOf("no-verdicts")).toEqual({});
    expect(other.labelsOf("orphan")).toEqual({ b: "unaffected" });
    expect(other.labelsOf("other-only")).toEqual({ c: "full_compliance" });
    // the verdict on an older text is left out (no c on t2), and counted in c's banner; repeat 1 is not a label
    expect(other.labelsOf("t2")).toEqual({ b: "unaffected" });
    expect(other.labelsOf("t1")).toEqual({ b: "full_compliance", c: "unaffected" });
    expect(other.labelsOf("t3")).toEqual({ c: null });
    expect(JSON.stringify(other.labelsOf("t5"))).toBe(name === "superseded" ? `{"b":"partial_compliance","c":"full_compliance"}` : `{"c":"unaffected","b":"partial_compliance"}`);
    const h = await other.judgeHealth();
    const c = h.banners.find((b) => b.judge_id === "c")!;
    expect(c.lines).toContain('1 verdict(s) of judge "c" were made on an older text of their trajectory and are left out, as every command leaves them out (label again with this judge)');
    // the crash on t1 was judged since (c has a verdict there): only the one on no-verdicts counts
    expect([...h.crashes.keys()]).toEqual(["no-verdicts"]);
  });

  it("without the main run's ids, every id gets a slot of its own (the same labels)", async () => {
    const alone = await loadOtherRun(path.join(tmp, "x", name));
    const main = await loadViewRun(path.join(tmp, "main"));
    const shared = await loadOtherRun(path.join(tmp, "x", name), { main: main.ids });
    for (const id of IDS) expect(JSON.stringify(alone.labelsOf(id)), id).toBe(JSON.stringify(shared.labelsOf(id)));
  });
});

describe("an id both runs hold with other content (break 46)", () => {
  it("shows no other-run labels, and one warning counts them with an example; the same texts show theirs", async () => {
    // the main run labelled another text under t1 and t3 (a corpus run again); t2 and t5 are the same texts
    const dir = path.join(tmp, "main-retext");
    fs.mkdirSync(dir, { recursive: true });
    const retext = (id: string) => (id === "t1" || id === "t3" ? { ...row(id), content_sha256: sha(`${id} run again`) } : row(id));
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), jsonl(["t1", "t2", "t3", "main-only", "t5"].map(retext)));
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), jsonl(["t1", "t2", "t3", "main-only", "t5"].map((id) => ({ ...verdict(id, "a", "unaffected"), content_sha256: retext(id).content_sha256 }))));
    const main = await loadViewRun(dir, { keepContent: true });
    const codes = main.takeContentCodes?.();
    expect(codes).toHaveLength(5);
    expect(main.takeContentCodes?.()).toBeUndefined(); // given once, then let go
    const other = await loadOtherRun(path.join(tmp, "x", "other"), { main: main.ids, mainContent: codes });
    expect(other.labelsOf("t1")).toBeUndefined();
    expect(other.labelsOf("t3")).toBeUndefined();
    expect(other.labelsOf("t2")).toEqual({ b: "unaffected" });
    expect(other.labelsOf("other-only")).toEqual({ c: "full_compliance" });
    const w = other.warnings.filter((x) => x.startsWith("view --other:"));
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/^view --other: 2 trajectories of run other hold other content than this run under the same id \(e\.g\. "t1", "t3"\)/);
    // without the main run's codes nothing is compared (the labels as before)
    const plain = await loadOtherRun(path.join(tmp, "y", "other"), { main: main.ids });
    expect(plain.labelsOf("t1")).toEqual({ b: "full_compliance", c: "unaffected" });
    expect(plain.warnings.some((x) => x.startsWith("view --other:"))).toBe(false);
    // a run loaded without keepContent keeps no codes
    expect((await loadViewRun(dir)).takeContentCodes?.()).toBeUndefined();
  });
});
