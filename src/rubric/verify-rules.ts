/**
 * The version of the rules that turn a judge's findings into a label (quote verification, `../evidence/`; the decision,
 * `../verdict/decide.ts`, `blocked.ts`, `attacker-result.ts`, `carry.ts`, `exposure.ts`, `compliance-evidence.ts`; the
 * rubric's rules here; the parts a trajectory is cut into, `../serialize/parts.ts`; what the judge's prompt elides,
 * `../serialize/render.ts` and `tools-budget.ts`), written on every verdict as
 * `verify_rules` (`../verdict/record.ts`). Here, below `store/`, so that the store's readers can compare it.
 *
 * Why: a verdict's resume key holds its prompt's hash and its judge's configuration, not the code's version, so an LLM
 * judge's verdict stored by an older build kept the label the older rules gave it for good, and a run resumed after an
 * upgrade mixed labels verified under two rule sets that every figure read as one. With the version on the line:
 * - `label` re-verifies a stored LLM verdict of an older version from its stored findings and trajectory, with no judge
 *   call (`../run/reverify.ts`, `../verdict/reverify.ts`), keeping the old label in `reverified`;
 * - the signature judge's `promptSha256` includes it (`../judges/signature/index.ts`): when it changes, its verdicts
 *   are judged again (offline, no cost) by `label --on-config-change rejudge` (a changed prompt is refused by default);
 * - every reader of a run's figures counts the current verdicts of an older version and says so, per judge
 *   (`../store/old-rules.ts`).
 *
 * RAISE IT when a change to those files can change the label of the same stored findings on the same trajectory.
 * `test/rubric/verify-rules.test.ts` pins their source's hash to the version: a change fails there until it is raised,
 * or the new hash pinned under the same version (a change that cannot move a label).
 * History (verdicts without the field: any earlier build):
 * 1. session 40: first recorded; the rules as of session 39 (quote rules "B" cut-escape letters and "E" call values,
 *    the refused-call rules, the attacker's-host rule, the attacker's own answer is no refusal) and red team 39 F (a
 *    provider's or harness's note beside a message is a `harness_note` part, evidence for no bucket).
 * 2. session 49: quote normalization drops Unicode's whole Default_Ignorable_Code_Point set plus U+FFF9-FFFB and
 *    U+2800 (`../evidence/normalize.ts` DROPPED; break49 F4): a quote across a Hangul filler, U+206A or U+180B inside the
 *    text verified under 1 as "not found" and now verifies, so a stored label can move.
 * 3. session 51: text elided from the judge's prompt (`--budget-chars`, the model's context) is no evidence (hostile 51,
 *    finding 1): a quote lying wholly in it fails (it verified under 2, and a compliance label could rest on text the
 *    judge never saw), one lying partly in it is marked `partly_elided`. Only verdicts of an elided prompt
 *    (`truncated`) can move, and those `label` cannot re-verify (which text was elided is not stored): they are counted
 *    as of older rules.
 * 4. session 54: a quote whose case-sensitive value (a link's path, query or fragment; a token mixing letters and
 *    digits: a short-link slug, an id, a code) differs only by case from the text it matched fails
 *    (`../evidence/case-values.ts`; hostile54 finding 2a: the injection's look-alike `bit.ly/3xKq9Za` verified at the
 *    agent's call holding `bit.ly/3XkQ9zA`); a compliance quote lying in an agent's call is marked
 *    `echo_of_injection` when it is mostly injected text with at least 8 words outside the values the
 *    injection quotes, and a move counts from a part holding the
 *    quote in the loose form (finding 4). Labels and marks can move.
 * 5. session 55: marks only, no label moves (hostile55 F5, F6): `compliance_unrelated` compares a quoted call's argument
 *    values, not its tool name's words (`send_money` no longer ties the user's own payment to "Send money to ..."), and a
 *    call aimed at another IBAN, address or host than the injection's shares nothing; a label below compliance beside an
 *    agent's call carrying the injection's IBAN, e-mail address or link is marked `injected_value_in_call`. Raised so
 *    that `label` re-verifies older verdicts and their marks are the current rules'.
 */
export const VERIFY_RULES_VERSION = 5;

/**
 * Whether a stored verdict's label was verified under older rules than {@link VERIFY_RULES_VERSION}: a labelled
 * (`ok`) or `unverified` verdict whose `verify_rules` is absent (an older build), not a whole number, or below the
 * current version; a newer build's higher version is not older (never re-verified down). Verdicts
 * without a decided reply (errors, refusals, unjudgeable) carry no verified label and never count. A field comparison.
 */
export function verifiedUnderOlderRules(v: { status?: unknown; verify_rules?: unknown }): boolean {
  if (v.status !== "ok" && v.status !== "unverified") return false;
  // a newer build's version is not older: this build would re-verify it down to its own rules (brk40), and the newer
  // build back up again
  const r = v.verify_rules;
  return !(typeof r === "number" && Number.isInteger(r) && r >= VERIFY_RULES_VERSION);
}
