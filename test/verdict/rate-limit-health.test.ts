import { describe, expect, it } from "vitest";
import { addRateLimits, durationText, rateLimitText } from "../../src/verdict/rate-limit-health.js";
import type { Verdict } from "../../src/types.js";

const v = (rate_limited?: unknown) => ({ judge_id: "j", status: "ok", rate_limited }) as unknown as Verdict;

describe("a judge's rate limits over its verdicts", () => {
  it("sums the verdicts' records; a verdict without one, or a malformed one, counts as none", () => {
    let h = addRateLimits(undefined, v());
    expect(h).toBeUndefined();
    h = addRateLimits(h, v({ responses: 2, waited_ms: 61_000, max_retry_after_ms: 20_000 }));
    h = addRateLimits(h, v({ responses: 1, waited_ms: 4_000, max_retry_after_ms: null }));
    h = addRateLimits(h, v({ responses: "3" }));
    h = addRateLimits(h, v({ responses: 0, waited_ms: 5 }));
    expect(h).toEqual({ verdicts: 2, responses: 3, waited_ms: 65_000, max_retry_after_ms: 20_000 });
    expect(rateLimitText(h)).toBe("rate limited 3 times (HTTP 429 or a rate limit in a 200) over 2 verdicts: 1 min 5 s waited in all, largest Retry-After honoured 20 s");
    expect(rateLimitText({ verdicts: 1, responses: 1, waited_ms: 700, max_retry_after_ms: null })).toBe(
      "rate limited 1 time (HTTP 429 or a rate limit in a 200) over 1 verdict: 0.7 s waited in all, no Retry-After given (backoff)",
    );
    expect(rateLimitText(undefined)).toBe("");
  });
  it("durations for a reader", () => {
    expect([durationText(400), durationText(12_400), durationText(60_000), durationText(3_725_000)]).toEqual(["0.4 s", "12 s", "1 min", "1 h 2 min"]);
  });
});
