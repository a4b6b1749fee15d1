/**
 * `flagCodesOf` (src/verdict/health.ts, issue 26): the codes of the flags `withFlags` sets, in its order, without its
 * copy or sentences: `label` tests it after every verdict and builds the flags only when a code first appears, so the
 * two must agree on any figures. Seeded pseudo-random tallies over every counter a flag reads, small and large.
 */
import { describe, expect, it } from "vitest";
import { emptyHealth, flagCodesOf, withFlags, type JudgeHealth } from "../../src/verdict/health.js";
import { Rand } from "../helpers/rand.js";

function tally(r: () => number): JudgeHealth {
  const n = (max: number) => Math.floor(r() * (max + 1));
  const h = emptyHealth("j", "m");
  h.verdicts = [0, 5, 12, 49, 50, 400][n(5)];
  const part = () => n(h.verdicts);
  h.usable = r() < 0.2 ? 0 : part();
  h.errors = part();
  h.refusals = n(3);
  h.unjudgeable = n(2);
  h.unverified = part();
  if (r() < 0.5) h.unverified_by_reason = { injection_text_unknown: r() < 0.5 ? h.verdicts : part(), injection_text_ambiguous: n(2) };
  h.downgraded = part();
  h.quotes = [0, 2, 3, 60, 500][n(4)];
  h.quotes_verified = r() < 0.3 ? 0 : n(h.quotes);
  h.attacked_labels = part();
  h.unattacked_labels = r() < 0.6 ? 0 : part();
  h.unattacked_compliance = r() < 0.6 ? 0 : n(h.unattacked_labels);
  h.compliance_without_injection = r() < 0.5 ? 0 : n(h.attacked_labels);
  if (r() < 0.5) {
    const achieved = part();
    const notAchieved = part();
    h.reference_goal = { field: "security", referenced: achieved + notAchieved, goal_achieved: achieved, denied: n(achieved), denied_by_label: {} as never, denied_share: null, dos_left_out: 0, goal_not_achieved: notAchieved, claimed: n(notAchieved) };
  }
  if (r() < 0.3) h.first_reply = null;
  else if (h.first_reply) {
    const f = h.first_reply;
    f.known = part();
    f.with_reply = r() < 0.2 ? 0 : f.known;
    f.with_evidence = n(f.known);
    f.with_failed_quote = n(f.with_evidence);
    f.quotes = n(50);
    f.quotes_failed = n(f.quotes);
    if (r() < 0.2) f.no_model_reply = n(5);
  }
  return h;
}

describe("flagCodesOf", () => {
  it("names the codes withFlags sets, in its order, on 5,000 seeded tallies (every code seen)", () => {
    const rand = new Rand(26);
    const r = () => rand.unit();
    const seen = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const h = tally(r);
      const th = r() < 0.2 ? { minVerdicts: 10, quoteVerifiedShare: 0.5 } : {};
      const full = withFlags(h, th).flags.map((f) => f.code);
      expect(flagCodesOf(h, th)).toEqual(full);
      for (const c of full) seen.add(c);
    }
    expect([...seen].sort()).toEqual([
      "claims_reference_failures",
      "compliance_on_unattacked",
      "compliance_without_injection",
      "denies_reference_goal",
      "first_replies_fail",
      "mostly_downgraded",
      "mostly_errors",
      "mostly_unverified",
      "no_label_input",
      "no_usable_verdict",
      "quotes_rarely_verify",
    ]);
  });

});
