/**
 * A guard for the verification-rules version (src/rubric/verify-rules.ts): the source of the rules that turn stored
 * findings into a label is pinned by hash to the version. A change to those files fails here until its author decides:
 * if it can change the label of the same stored findings on the same trajectory, raise VERIFY_RULES_VERSION (and add
 * its history line), so `label` re-verifies older verdicts and every figure command warns until it has; if it cannot
 * (a comment, a rename, a speed-up), pin the new hash with the same version. Either way the choice is made, not missed
 * (session 40: quote rules B and E, the refused-call and attacker-host rules changed labels with no version to say so).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { VERIFY_RULES_VERSION } from "../../src/rubric/verify-rules.js";
import { ROOT } from "../helpers/paths.js";
import { SIGNATURE_RULES_DESCRIPTION } from "../../src/judges/signature/index.js";

/** The files whose code decides a label from stored findings (what `src/verdict/reverify.ts` runs). */
const RULE_FILES = [
  "src/evidence/call-values.ts",
  "src/evidence/case-values.ts",
  "src/evidence/context.ts",
  "src/evidence/html.ts",
  "src/evidence/normalize.ts",
  "src/evidence/units.ts",
  "src/evidence/verify.ts",
  "src/verdict/attacker-result.ts",
  "src/verdict/blocked.ts",
  "src/verdict/carry.ts",
  "src/verdict/compliance-evidence.ts",
  "src/verdict/decide.ts",
  "src/verdict/exposure.ts",
  "src/verdict/locator.ts",
  "src/rubric/buckets.ts",
  "src/rubric/unattacked.ts",
  "src/serialize/untrusted.ts",
  "src/serialize/parts.ts",
  // what the judge was shown: the text they elide is no evidence (verify rules 3); re-verification skips elided verdicts
  "src/serialize/render.ts",
  "src/serialize/tools-budget.ts",
];

/** The version and the hash of {@link RULE_FILES} it was pinned with. */
// re-pinned, version kept, after perf40 (the tool-call quote check and the exposure search done once per call and per text; labels unchanged: 14,248 signature and 3,784 LLM-path verdicts identical before and after)
// re-pinned, version kept, after red41 (src/verdict/blocked.ts: Math.min(...xs) -> minOf(xs), the same value for every input, Infinity for none as before; labels unchanged)
// re-pinned, version kept, after sig52 (src/serialize/render.ts and tools-budget.ts, which decide what is elided from the judge's prompt, added to the pinned files; no code changed, no label moves)
// re-pinned, version kept, after hostile52 F2 (src/verdict/decide.ts sets the compliance_in_user_task mark; labels unchanged) and its merge with sig52
// re-pinned, version kept, after v8flags53 (src/verdict/decide.ts finds the evidence's shared tokens once for both marks; the same marks and labels for every input)
// version 4 after quote54 (hostile54 findings 2a and 4: case-sensitive values in quotes, src/evidence/case-values.ts added; echo marks on calls)
// version 5 after fixh55 (hostile55 F5, F6: src/verdict/decide.ts sets the injected_value_in_call mark; compliance_unrelated reads argument values only; marks move, labels do not)
const PINNED = { version: 5, sha256: "571e1bf16885b8679f008f1e3f530a6c08781536c6b2f897f88cb787fbbf1f58" };

function rulesHash(): string {
  const h = crypto.createHash("sha256");
  for (const f of RULE_FILES) h.update(`${f}\n`).update(fs.readFileSync(path.join(ROOT, f), "utf8").replace(/\r\n/g, "\n"));
  return h.digest("hex");
}

describe("the verification rules' version follows their source", () => {
  it("the pinned hash is the source's under the current version", () => {
    const now = rulesHash();
    expect(
      { version: VERIFY_RULES_VERSION, sha256: now },
      `the source of the verification rules changed (${RULE_FILES.length} files, test/rubric/verify-rules.test.ts). If the change can change a ` +
        `label of the same stored findings, raise VERIFY_RULES_VERSION in src/rubric/verify-rules.ts (with a history line); either way pin ` +
        `PINNED = { version: ${VERIFY_RULES_VERSION}, sha256: "${now}" } here`,
    ).toEqual(PINNED);
  });

  it("the signature judge's prompt hash holds the version: raised, its verdicts are judged again (offline)", () => {
    expect(SIGNATURE_RULES_DESCRIPTION).toContain(`verify-rules-${VERIFY_RULES_VERSION}:`);
  });
});
