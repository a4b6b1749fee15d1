/**
 * The test-retest lines of the committee report (one judge's repeated requests on the same trajectories): printed by
 * `ipi-judge committee` and shown by the report's committee section (new user 36 #3: the report left them out).
 */
import { f3, kappaCell, pct } from "../agree/pairwise.js";
import { claimedLine, CODE_SET_MOST, codeSetLine, type JudgeRetest } from "./retest.js";
import { fewItemsLine } from "../stats/few-in-category.js";

/**
 * The test-retest block: a heading, then per repeated judge its repeats, pairwise agreement with repeat 0 and Fleiss'
 * kappa across repeats; [] when no judge repeated.
 * @param unattackedLeftOut the unattacked trajectories the committee's agreement leaves out (said in the heading).
 */
export function retestLines(retest: readonly JudgeRetest[], unattackedLeftOut: number): string[] {
  if (!retest.length) return [];
  const L = [`test-retest (same judge, repeated requests${unattackedLeftOut ? `; over attacked trajectories, the ${unattackedLeftOut} unattacked left out as above` : ""}):`];
  for (const t of retest) {
    // how many of them every repeat labelled, up front: the figures below are over those (new user 36: "287" read as
    // the base of figures over 53)
    L.push(`  ${t.judge_id}: ${t.repeats} repeats over ${t.n_items} trajectories, ${t.across_six.n_complete} of them labelled by every repeat`);
    if (t.deterministic) L.push(`    note: ${t.deterministic}`);
    if (t.content_mismatch) L.push(`    left out: ${t.content_mismatch.items} trajector${t.content_mismatch.items === 1 ? "y" : "ies"} judged on different texts in different repeats (see the warning above)`);
    if (t.config_mismatch) L.push(`    left out: ${t.config_mismatch.items} trajector${t.config_mismatch.items === 1 ? "y" : "ies"} judged under different configurations in different repeats (mixed_configuration: see the warning above)`);
    for (const p of t.pairs) {
      L.push(`    repeat 0 vs ${p.repeat}: six buckets agreement ${pct(p.six.percent_agreement.value, p.six.percent_agreement.reason)}, kappa ${kappaCell(p.six.kappa)}; binary agreement ${pct(p.binary.percent_agreement.value, p.binary.percent_agreement.reason)}, kappa ${kappaCell(p.binary.kappa)}`);
      // a binary kappa on a category used 1-4 times (../stats/few-in-category.ts), as every 2 x 2 kappa says it
      if (p.binary.few_in_category) L.push(`      ${fewItemsLine(p.binary.few_in_category, "binary")}`);
      if (p.claimed?.differ) L.push(`      ${claimedLine(p.claimed)}`);
      if (p.code_set) L.push(`      ${codeSetLine(p.code_set)}`); // labels code set agree by construction (break53 #9)
    }
    const fs = t.across_six.fleiss;
    const fb = t.across_binary.fleiss;
    // over the same labels: when code set most of them (the pairs' warning), the Fleiss figure measures the code too (break2_53 #4)
    const coded = t.pairs.some((p) => p.code_set && p.code_set.both_code + p.code_set.one_code > CODE_SET_MOST * p.code_set.labelled);
    L.push(`    Fleiss' kappa across repeats: six ${f3(fs.value, fs.reason)}, binary ${f3(fb.value, fb.reason)} (${t.across_six.n_complete} trajectories with every repeat labelled${coded ? "; most of their labels set by code, as the WARNING above says: not the judge's stability" : ""})`);
  }
  return L;
}
