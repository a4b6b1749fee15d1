/**
 * Red team M4 / new user M1, end to end: two loopback judges (127.0.0.1) that never find compliance label the bundled
 * real AgentDojo samples. `blind` answers `unaffected` quoting the injected text where the agent received it (real
 * quotes: every one verifies), `absent` answers `not_exposed` with no evidence (code sets `unaffected` where it finds
 * the text). Every other health check passes them; their asr_goal is 0% with coverage 100%. The benchmark's own
 * verdict (`security` true: the injected goal was achieved) contradicts them on every goal-achieved run, so `label`
 * marks their rates (`denies_reference_goal`), says why and exits 3; the signature judge on the same runs is not
 * flagged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { blindReply } from "../helpers/blind-judge.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let labels: string;
let blind: FakeOpenAI;
let absent: FakeOpenAI;
let label: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-denies-goal-"));
  blind = await startFakeOpenAI((req) => blindReply(req, "unaffected"));
  absent = await startFakeOpenAI((req) => blindReply(req, "not_exposed"));
  const judges = path.join(tmp, "judges.json");
  fs.writeFileSync(
    judges,
    JSON.stringify({
      judges: [
        { id: "blind", model: "stub-unaffected", family: "meta", base_url: blind.url, concurrency: 4, output_mode: "json_object" },
        { id: "absent", model: "stub-not-exposed", family: "mistral", base_url: absent.url, concurrency: 4, output_mode: "json_object" },
      ],
    }),
  );
  labels = path.join(tmp, "labels");
  label = await runCli(["label", SAMPLES, "--judges", judges, "--run", "stub", "--labels-dir", labels]);
}, 180_000);
afterAll(async () => {
  await blind.close();
  await absent.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("a judge that never finds compliance where the benchmark says the goal was achieved", () => {
  it("label marks its rates, says the counts, the field and what to do, and exits 3", () => {
    expect(label.code, label.stderr).toBe(3);
    expect(label.stderr).toMatch(/the rates of judge\(s\) absent, blind are marked LOOKS BROKEN/);
    for (const j of ["blind", "absent"]) {
      expect(label.stderr).toMatch(new RegExp(`judge "${j}" \\(stub-[a-z-]+\\) looks broken: \\d+ of its \\d+ labels on trajectories the benchmark marks goal-achieved \\(reference\\.security true`));
      expect(unwrapText(label.stdout)).toContain(`[JUDGE "${j}" LOOKS BROKEN: see the warning]`);
      // absent's not_exposed where code found the injected text is caught too (newuser52 #3: denies_exposure)
      const flags = j === "absent" ? "denies_reference_goal, denies_exposure" : "denies_reference_goal";
      expect(unwrapText(label.stdout)).toMatch(new RegExp(`WARNING \\(rates\\): judge "${j}" looks broken \\(${flags}\\): \\d+ of its \\d+ labels on runs the benchmark marks goal-achieved`));
    }
    expect(unwrapText(label.stdout)).toMatch(/check with ipi-judge agree --reference security/); // the summary is wrapped (../../src/format/wrap-text.ts)
  });

  it("summary.json carries the figures (health.reference_goal), the flag and the rate caveat; the quotes were real", () => {
    const s = JSON.parse(fs.readFileSync(path.join(labels, "stub", "summary.json"), "utf8"));
    for (const id of ["blind", "absent"]) {
      const j = s.judges.find((x: { judge_id: string }) => x.judge_id === id);
      const g = j.health.reference_goal;
      expect(g.field).toBe("security");
      expect(g.goal_achieved).toBeGreaterThanOrEqual(10);
      expect(g.denied).toBe(g.goal_achieved);
      // no other check caught blind; absent's not_exposed where code found the text is denies_exposure (newuser52 #3)
      const flags = id === "absent" ? ["denies_reference_goal", "denies_exposure"] : ["denies_reference_goal"];
      expect(j.health.flags.map((f: { code: string }) => f.code)).toEqual(flags);
      expect(j.rate_caveat.flags).toEqual(flags);
      expect(j.rates.asr_goal.count).toBe(0);
    }
    const b = s.judges.find((x: { judge_id: string }) => x.judge_id === "blind").health;
    expect(b.quotes).toBeGreaterThanOrEqual(10);
    expect(b.quotes_verified).toBe(b.quotes);
  });

  it("agree --reference and compare carry it too", async () => {
    const a = await runCli(["agree", "--run", "stub", "--labels-dir", labels, "--reference", "security", "--json"]);
    // its figures are the two flagged judges': exit 3, as label (the JSON printed whole)
    expect(a.code, a.stderr).toBe(3);
    expect(a.stderr).toMatch(/^ipi-judge: agree finished, but its figures use judges that look broken \(absent: its rates are marked LOOKS BROKEN \(denies_reference_goal, denies_exposure\); blind: its rates are marked LOOKS BROKEN \(denies_reference_goal\)\): exit code 3$/m);
    const out = JSON.parse(a.stdout);
    expect(out.judge_health.map((h: { judge_id: string; flags: Array<{ code: string }> }) => [h.judge_id, h.flags.map((f) => f.code)])).toEqual([
      ["absent", ["denies_reference_goal", "denies_exposure"]],
      ["blind", ["denies_reference_goal"]],
    ]);
    // its own output never advises running itself (new user 19): the flag and the caveat say it is the check
    for (const m of [...out.judge_health.flatMap((h: { flags: Array<{ message: string }> }) => h.flags.map((f) => f.message)), ...out.warnings, a.stderr]) {
      expect(m).not.toContain("check with ipi-judge agree --reference security");
    }
    expect(out.warnings.join("\n")).toContain("this output's agreement figures are that check");
    const t = await runCli(["agree", "--run", "stub", "--labels-dir", labels, "--reference", "security"]);
    expect(t.code, t.stderr).toBe(3);
    expect(t.stdout + t.stderr).not.toContain("check with ipi-judge agree --reference security");
    expect(unwrapText(t.stdout)).toContain("this output's agreement figures are that check");
    expect(t.stderr).toContain("this output's agreement figures are that check");
    const c = await runCli(["compare", "--run", "stub", "--labels-dir", labels, "--judge", "blind", "--by", "attack", "--json", "--bootstrap", "0"]);
    // elsewhere the advice stays
    expect(JSON.parse(c.stdout).rate_caveats[0].message).toContain("check with ipi-judge agree --reference security");
    expect(c.code, c.stderr).toBe(3);
    expect(c.stderr).toMatch(/^ipi-judge: compare finished, but its figures use a judge that looks broken \(blind: .*\): exit code 3$/m);
    // the other flagged judge of the run is not compare's: warned about only
    expect(c.stderr).toMatch(/^ipi-judge: warning: judge "absent" of the run looks broken \(.*\), but the figures of compare here do not use it/m);
    expect(JSON.parse(c.stdout).rate_caveats.map((x: { flags: string[] }) => x.flags)).toEqual([["denies_reference_goal"]]);
  }, 60_000);

  it("the signature judge on the same runs is not flagged: figures said, exit 0", async () => {
    const r = await runCli(["label", SAMPLES, "--run", "sig", "--labels-dir", labels, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout).judges[0];
    expect(j.health.reference_goal.goal_achieved).toBeGreaterThanOrEqual(10);
    expect(j.health.reference_goal.denied_share).toBeLessThan(0.5);
    expect(j.health.flags.map((f: { code: string }) => f.code)).not.toContain("denies_reference_goal");
  }, 60_000);
});
