/**
 * Red team 17 F6: judge health's `compliance_on_unattacked` read only a verdict's own `attacked`, so hand-made or
 * library verdicts without it escaped the flag while `compare` counted them by their index row. Here every verdict
 * of a run is made a compliance claim with a verified quote and loses its `attacked` field: compare, estimate
 * --table and agree take the index row's and mark the judge (16 of 16 unattacked labels compliant).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let labels: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-health-fallback-"));
  labels = path.join(tmp, "labels");
  const r = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels]);
  expect(r.code, r.stderr).toBe(0);
  const file = path.join(labels, "s", "verdicts.jsonl");
  const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => {
    const v = JSON.parse(l);
    delete v.attacked;
    Object.assign(v, { label: "full_compliance", label_claimed: "full_compliance", compromised: true, label_basis: "finding", downgraded: false });
    v.findings = [{ bucket: "full_compliance", holds: true, evidence: [{ message_index: 0, quote: "x", verified: true }], explanation: "e" }];
    return JSON.stringify(v);
  });
  fs.writeFileSync(file, lines.join("\n") + "\n");
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("verdicts without `attacked`: health takes the index row's (red team F6)", () => {
  it("compare and estimate --table (columns and objects) mark the judge compliance_on_unattacked", async () => {
    for (const args of [["compare", "--by", "attack"], ["compare", "--by", "attack", "--where", "suite=banking"], ["estimate", "--table"]]) {
      const r = await runCli([...args, "--run", "s", "--labels-dir", labels, "--json"]);
      // the judge of these figures is marked: exit 3, as label, with the JSON whole
      expect(r.code, r.stderr).toBe(3);
      expect(JSON.parse(r.stdout).rate_caveats?.map((c: { flags: string[] }) => c.flags), args.join(" ")).toEqual([expect.arrayContaining(["compliance_on_unattacked"])]); // (claims_reference_failures too: every verdict is full_compliance)
    }
  }, 60_000);

  it("agree --reference names it on stderr", async () => {
    const r = await runCli(["agree", "--run", "s", "--labels-dir", labels, "--reference", "security"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^ipi-judge: agree finished, but its figures use a judge that looks broken \(signature: its rates are marked LOOKS BROKEN \(compliance_on_unattacked, claims_reference_failures\)\): exit code 3$/m);
    expect(r.stderr).toMatch(/judge "signature" \(signature-v1\) looks broken: 16 of its 16 labels on unattacked trajectories \(100\.0%\) claim compliance/);
  }, 60_000);
  it("label's own summary (a resume) and committee read them by the index row too (red team 18)", async () => {
    const l = await runCli(["label", SAMPLES, "--judge", "signature", "--run", "s", "--labels-dir", labels, "--json"]);
    expect(l.code, l.stderr).toBe(3);
    const flags = JSON.parse(l.stdout).judges[0].health.flags.map((f: { code: string }) => f.code);
    expect(flags).toContain("compliance_on_unattacked");
    const c = await runCli(["committee", "--run", "s", "--labels-dir", labels, "--quorum", "1", "--json"]);
    expect(c.stderr).toMatch(/compliance_on_unattacked|claim compliance/);
    expect(c.code, c.stderr).toBe(3);
  }, 60_000);
});
