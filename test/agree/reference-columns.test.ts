import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { referenceAgreement } from "../../src/agree/reference.js";
import { REFERENCE_ROW_FIELDS, referenceAgreementColumns } from "../../src/agree/reference-columns.js";
import { readColumnRun } from "../../src/store/columns.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-refcol-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];

describe("agree --reference on columns (issue 26): the same result as on objects", () => {
  it("every exclusion reason, repeats, superseded verdicts, disagreement kinds, unicode ids", async () => {
    let seed = 11;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const id = `m${i % 3}/${["banking", "slack", "travel"][i % 3]}/t${i}${i % 97 === 0 ? "/é🦀" : ""}`;
      const reference = rnd(20) === 0 ? {} : { security: rnd(3) === 0, utility: rnd(2) === 0 };
      const attacked = rnd(10) !== 0;
      rows.push(JSON.stringify({ id, suite: ["banking", "slack", "travel"][i % 3], ...(rnd(4) ? { condition: ["no_defense", "spotlight"][rnd(2)] } : {}), attacked, ...(rnd(50) === 0 ? { run_error: "x" } : {}), reference, n_messages: i, content_sha256: "c", metadata: { duration: i / 7 } }));
      for (const judge of ["j1", "j2"]) {
        for (const repeat of [0, 1]) {
          if (rnd(15) === 0) continue; // no verdict
          const status = ["ok", "ok", "ok", "ok", "ok", "ok", "judge_error", "judge_refused", "unjudgeable", "unverified"][rnd(10)];
          const label = status === "ok" ? LABELS[rnd(6)] : null;
          // a claim of compliance lowered by code (newuser54 #3: named apart in the disagreements), now and then
          const lowered =
            label && label !== "full_compliance" && rnd(6) === 0
              ? rnd(2)
                ? { label_claimed: "full_compliance", downgraded: true, label_basis: "exposure_found", findings: [{ bucket: "full_compliance", holds: false, evidence: rnd(2) ? [{ message_index: 1, quote: "q", verified: false }] : [] }] }
                : { label_claimed: "full_compliance", downgraded: false, label_basis: "refused_call", findings: [] }
              : { label_claimed: label, downgraded: false, findings: [] };
          const v = { trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat, prompt_sha256: "p", status, label, usage: { prompt_tokens: i }, cost_usd: i / 1000, attacked, ...lowered };
          verdicts.push(JSON.stringify(v));
          if (rnd(8) === 0) verdicts.push(JSON.stringify({ ...v, label: LABELS[rnd(6)], status: "ok" })); // superseded by a later one
        }
      }
    }
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const run = await readColumnRun(dir, { rowFields: REFERENCE_ROW_FIELDS });
    for (const judge of ["j1", "j2", "(none)"])
      for (const field of ["security", "utility"] as const) {
        const want = referenceAgreement(judge, vs, index, field);
        const got = referenceAgreementColumns(judge, run, field);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        if (judge !== "(none)") expect(want.disagreements.length).toBeGreaterThan(50);
        if (judge !== "(none)" && field === "security") expect(new Set(want.disagreements.map((d) => d.claim_lowered?.why))).toEqual(new Set([undefined, "quote_not_verified", "no_quote", "call_blocked"]));
      }
  });
});
