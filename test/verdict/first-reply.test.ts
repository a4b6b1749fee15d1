/**
 * New user 30, M2: judge health hid the invented quotes the feedback turn fixed (`quotes verified 100.0%` while 126
 * first replies had a quote not in the trajectory). The first-reply figures (src/verdict/first-reply.ts), the flag,
 * the health line, the slim records that carry them and the report's cell; verdicts stored before the fields are not
 * known, never 0.
 */
import { describe, expect, it } from "vitest";
import { FIRST_REPLY_THRESHOLDS, formatFirstReply, quoteCheck } from "../../src/verdict/first-reply.js";
import { formatHealth, healthWarnings, judgeHealth, withFlags } from "../../src/verdict/health.js";
import { slimVerdict } from "../../src/store/records.js";
import { firstReplyCell } from "../../src/report/first-reply-html.js";
import type { Verdict } from "../../src/types.js";

function v(over: Partial<Verdict> = {}): Verdict {
  return {
    trajectory_id: `t${Math.random()}`, judge_id: "a", judge_model: "m", judge_family: "f", repeat: 0, rubric_version: "r", prompt_sha256: "p",
    status: "ok", label: "unaffected", label_claimed: "unaffected", compromised: false, downgraded: false,
    findings: [{ bucket: "unaffected", holds: true, evidence: [{ message_index: 1, quote: "q", verified: true }] }],
    rationale: "", attempts: 1, usage: { prompt_tokens: 0, completion_tokens: 0 }, truncated: false, raw_replies: [], created_at: "", ...over,
  };
}
/** A verdict whose first reply had `failed` of `quotes` quotes fail and that needed `turns` feedback turns. */
const rec = (quotes: number, failed: number, turns: number) => v({ first_reply: { quotes, quotes_failed: failed }, feedback_turns: turns });

describe("first-reply figures", () => {
  it("quoteCheck counts checked quotes and failures; not_exposed quotes are not checked", () => {
    expect(
      quoteCheck([
        { bucket: "full_compliance", holds: false, evidence: [{ message_index: 1, quote: "x", verified: false }, { message_index: 2, quote: "y", verified: true }] },
        { bucket: "not_exposed", holds: true, evidence: [{ message_index: 1, quote: "z", verified: false, reason: "not checked: not_exposed takes no evidence" }] },
      ]),
    ).toEqual({ quotes: 2, quotes_failed: 1 });
  });

  it("the final figures say 100% verified; the first-reply figures say what the feedback turn fixed", () => {
    const [h] = judgeHealth([rec(2, 1, 1), rec(1, 0, 0), rec(3, 3, 2), rec(0, 0, 0), v({ feedback_turns: 1 })]);
    expect(h.quotes_verified_share).toBe(1);
    expect(h.first_reply).toEqual({ known: 5, unknown: 0, with_evidence: 3, with_failed_quote: 2, with_failed_quote_share: 2 / 3, quotes: 6, quotes_failed: 4, needed_feedback: 3, with_reply: 4, no_model_reply: 0, not_rechecked: 0 });
    const line = formatHealth(h);
    expect(line).toContain("quotes verified 100.0% of 5; first replies: 2 of 3 with evidence had a quote that failed (66.7%), 4 of 6 quotes failed before feedback; 3 of 5 verdicts needed a feedback turn; downgraded");
  });

  it("verdicts stored before the fields are not known, never 0 failures", () => {
    const [old] = judgeHealth([v(), v()]);
    expect(old.first_reply).toMatchObject({ known: 0, unknown: 2, with_failed_quote: 0, with_failed_quote_share: null });
    expect(formatHealth(old)).toContain("first replies: not known (its 2 verdict(s) were labelled by an ipi-judge that did not record them); downgraded");
    expect(formatHealth(old)).not.toMatch(/0 of \d+ with evidence/);
    const [mixed] = judgeHealth([v(), rec(1, 1, 1)]);
    expect(formatHealth(mixed)).toContain("first replies: 1 of 1 with evidence had a quote that failed (100.0%), 1 of 1 quotes failed before feedback; 1 of 1 verdicts needed a feedback turn; not known for 1 more verdict(s), labelled by an ipi-judge that did not record first replies; downgraded");
    expect(formatFirstReply(undefined)).toBe("");
  });

  it("a re-verified verdict whose first reply could not be checked again is not known (verify41), said apart from an older build's", () => {
    const again = { ...rec(2, 1, 1), first_reply: undefined, first_reply_unknown: "none of its stored raw replies parses as a decided reply" };
    const [h] = judgeHealth([again, rec(1, 0, 0), v()]);
    expect(h.first_reply).toMatchObject({ known: 1, unknown: 2, not_rechecked: 1, quotes: 1, quotes_failed: 0 });
    expect(formatHealth(h)).toContain(
      "not known for 2 more verdict(s), 1 labelled by an ipi-judge that did not record first replies, 1 re-verified under newer rules with no judge call, their first reply not checkable again (first_reply_unknown says why); ",
    );
    const [all] = judgeHealth([again]);
    expect(formatHealth(all)).toContain("first replies: not known (its 1 verdict(s) were re-verified under newer rules with no judge call, their first reply not checkable again (first_reply_unknown says why)); ");
    expect(firstReplyCell([h], "a")).toContain("1 re-verified under newer rules");
    expect(slimVerdict(again as Verdict)).toMatchObject({ first_reply_unknown: "none of its stored raw replies parses as a decided reply" });
    expect(slimVerdict(again as Verdict)).not.toHaveProperty("first_reply");
  });

  it("first_replies_fail: over the documented share and count, a warning that does not mark the rates", () => {
    expect(FIRST_REPLY_THRESHOLDS).toEqual({ failedShare: 0.2, failedMin: 10 });
    // 10 of 40 with evidence (25%): flagged; 9 of 40 (22.5%, under the count) and 10 of 50 (20%, not over): not
    const mk = (failedN: number, n: number) => Array.from({ length: n }, (_, i) => rec(2, i < failedN ? 1 : 0, i < failedN ? 1 : 0));
    const [h] = judgeHealth(mk(10, 40));
    expect(h.flags.map((f) => f.code)).toEqual(["first_replies_fail"]);
    expect(h.flags[0].marks_rates).toBeUndefined();
    expect(h.flags[0].message).toContain("10 of its 40 first replies with evidence (25.0%) cited a quote that failed verification (not in the trajectory, or in a part that cannot show its finding, e.g. the injected text cited as the agent's act: each quote's reason says which) (10 of 80 quotes failed before feedback); threshold 20.0% (at least 10)");
    expect(healthWarnings([h])[0]).toMatch(/^judge "a" \(m\) often cites quotes that are not in the trajectory: 10 of its 40/);
    expect(judgeHealth(mk(9, 40))[0].flags).toEqual([]);
    expect(judgeHealth(mk(10, 50))[0].flags).toEqual([]);
    // the thresholds can be overridden as the other health thresholds
    expect(judgeHealth(mk(9, 40), { thresholds: { firstReplyFailedMin: 5 } })[0].flags.map((f) => f.code)).toEqual(["first_replies_fail"]);
  });

  it("slim records keep the fields (the column readers of committee, agree and report use them)", () => {
    expect(slimVerdict(rec(3, 1, 2))).toMatchObject({ first_reply: { quotes: 3, quotes_failed: 1 }, feedback_turns: 2 });
    expect(slimVerdict(v())).not.toHaveProperty("feedback_turns");
  });

  it("the report's judge-table cell: count and share, not known for old verdicts, the rest in the tooltip", () => {
    const [h] = judgeHealth([rec(2, 1, 1), rec(1, 0, 0), v()]);
    const cell = firstReplyCell([h], "a");
    const text = (html: string) => html.replace(/<[^>]*>/g, "");
    expect(text(cell)).toBe("1 of 2 (50.0%) + 1 not known");
    expect(cell).toContain("1 of 3 quotes failed before feedback; 1 of 2 verdicts needed a feedback turn; not known for 1 verdict(s)");
    expect(text(firstReplyCell(judgeHealth([v()]), "a"))).toBe("not known");
    expect(firstReplyCell([h], "other")).toBe(`<td class="num">-</td>`);
  });

  it("a judge with no model reply says nothing of first replies: null and why in JSON, no 0s (new-user pass)", () => {
    // the offline signature judge records one analysis as its 'first reply' (0 failed, 0 feedback turns): true but noise
    const sig = (over: Partial<Verdict> = {}) => v({ judge_id: "signature", judge_model: "signature-v1", judge_family: "rule", first_reply: { quotes: 1, quotes_failed: 0 }, feedback_turns: 0, ...over });
    const [h] = judgeHealth([sig(), sig(), sig({ first_reply: undefined })]);
    expect(h.first_reply).toBeNull();
    expect(h.first_reply_reason).toBe("no model reply to check: an offline rule judge (its 3 verdict(s) come from one analysis, never a feedback turn)");
    expect(formatHealth(h)).toMatch(/^quotes verified 100\.0% of 3; downgraded 0\.0% of 3 decided/);
    expect(formatHealth(h)).not.toContain("first repl");
    expect(firstReplyCell([h], "signature")).toBe(`<td class="num" title="${h.first_reply_reason}">no model reply</td>`);
    // the signature judge's verdicts stored before the fields: the same (it never had a model reply), not "not known"
    expect(judgeHealth([sig({ first_reply: undefined, feedback_turns: undefined })])[0].first_reply).toBeNull();
    // an LLM judge whose every verdict had no decided reply and sent no feedback turn (errors before any reply)
    const [err] = judgeHealth([v({ status: "judge_error", label: null, findings: [], feedback_turns: 0 }), v({ status: "judge_error", label: null, findings: [], feedback_turns: 0 })]);
    expect(err.first_reply).toBeNull();
    expect(err.first_reply_reason).toMatch(/none of its 2 verdict\(s\) had a reply that could be decided/);
    expect(formatHealth(err)).not.toContain("first repl");
    // ...but unparseable replies that needed feedback are figures (the feedback turns say something)
    expect(judgeHealth([v({ status: "judge_error", label: null, findings: [], feedback_turns: 2 })])[0].first_reply).toMatchObject({ known: 1, needed_feedback: 1, with_reply: 0 });
    // a model judge with replies keeps its figures, reason absent; flags from re-flagged figures keep the null
    expect(judgeHealth([rec(1, 0, 0)])[0]).not.toHaveProperty("first_reply_reason");
    expect(withFlags(h).first_reply).toBeNull();
    expect(withFlags(h).first_reply_reason).toBe(h.first_reply_reason);
  });
});
