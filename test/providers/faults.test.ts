/**
 * The fault policy tables (`src/providers/faults.ts`) read row by row: what a thrown error is and what the send loop
 * does about it, on the `openai` client's own error classes (`APIError.generate`, as the client builds them). The
 * same rows are exercised end to end through the real client in `send.test.ts`, `send-limits.test.ts`,
 * `send-redteam.test.ts`, `in-band-errors.test.ts` and `reasoning.test.ts`.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ResponseDecodeError, ResponseTooLargeError } from "../../src/providers/fetch.js";
import { classifyError, cutsConcurrency, type FaultState } from "../../src/providers/faults.js";

const state = (over: Partial<FaultState> = {}): FaultState => ({
  judgeId: "j",
  timeoutMs: 5000,
  timedOut: false,
  aborted: false,
  canDropTemperature: true,
  canSwitchTokenParam: true,
  neverAnswered: false,
  maxRetryAfterMs: 300_000,
  random: () => 0,
  ...over,
});

const http = (status: number, message: string, headers: Record<string, string> = {}, body: Record<string, unknown> = {}) =>
  OpenAI.APIError.generate(status, { error: { message, ...body } }, undefined, new Headers(headers));

describe("HTTP status rows", () => {
  it.each([
    [401, "fatal", "auth"],
    [403, "fatal", "auth"],
    [408, "retry", "http_408"],
    [409, "retry", "http_409"],
    [500, "retry", "server_error"],
    [503, "retry", "server_error"],
    [501, "error", "http_501"],
    [404, "error", "http_404"],
    [400, "error", "bad_request"],
  ] as const)("%i -> %s %s", (status, action, kind) => {
    expect(classifyError(http(status, "nope"), state())).toMatchObject({ action, kind });
  });

  it("429: insufficient_quota is fatal; a retry-after over the cap is fatal rate_limited; else the asked wait or backoff", () => {
    expect(classifyError(http(429, "quota", {}, { code: "insufficient_quota" }), state())).toMatchObject({ action: "fatal", kind: "insufficient_quota" });
    expect(classifyError(http(429, "slow down", { "retry-after": "600" }), state())).toMatchObject({ action: "fatal", kind: "rate_limited" });
    expect(classifyError(http(429, "slow down", { "retry-after": "2" }), state())).toMatchObject({ action: "retry", kind: "rate_limited", waitMs: 2050 });
    expect(classifyError(http(429, "slow down"), state())).toMatchObject({ action: "retry", kind: "rate_limited", waitMs: undefined });
    expect(cutsConcurrency(http(429, "slow down"))).toBe(true);
    expect(cutsConcurrency(http(429, "quota", {}, { code: "insufficient_quota" }))).toBe(false);
  });

  it("400s that name what to change are resent adapted, once (the state says whether it is still possible)", () => {
    const temp = http(400, "Unsupported value: 'temperature' does not support 0 with this model.");
    expect(classifyError(temp, state())).toEqual({ action: "resend", adapt: "drop_temperature" });
    expect(classifyError(temp, state({ canDropTemperature: false }))).toMatchObject({ action: "error", kind: "bad_request" });
    const param = http(400, "Unsupported parameter: 'max_tokens'. Use 'max_completion_tokens' instead.");
    expect(classifyError(param, state())).toEqual({ action: "resend", adapt: "max_completion_tokens" });
    expect(classifyError(param, state({ canSwitchTokenParam: false }))).toMatchObject({ action: "error", kind: "bad_request" });
    expect(classifyError(http(400, "This model's maximum context length is 8192 tokens"), state())).toMatchObject({ action: "error", kind: "context_length" });
  });
});

describe("error rows", () => {
  it("the run's abort wins over anything else", () => {
    expect(classifyError(http(503, "x"), state({ aborted: true }))).toEqual({ action: "aborted" });
  });

  it("body limits, decoding, timeouts, connection faults, non-JSON bodies, the rest", () => {
    expect(classifyError(new ResponseTooLargeError(10), state())).toMatchObject({ action: "error", kind: "response_too_large" });
    expect(classifyError(new ResponseDecodeError("bad gzip"), state())).toMatchObject({ action: "invalid_response" });
    expect(classifyError(new OpenAI.APIConnectionTimeoutError(), state())).toMatchObject({ action: "retry", kind: "timeout" });
    expect(classifyError(new OpenAI.APIUserAbortError(), state({ timedOut: true }))).toMatchObject({ action: "retry", kind: "timeout" });
    expect(classifyError(new OpenAI.APIUserAbortError(), state())).toEqual({ action: "aborted" });
    expect(classifyError(new TypeError("terminated"), state())).toMatchObject({ action: "retry", kind: "connection" });
    const refused = new OpenAI.APIConnectionError({ cause: Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED", message: "connect ECONNREFUSED" } }) });
    expect(classifyError(refused, state({ neverAnswered: true }))).toMatchObject({ action: "connection", unreachable: true });
    expect(classifyError(refused, state({ neverAnswered: false }))).toMatchObject({ action: "connection", unreachable: false });
    expect(classifyError(new SyntaxError("Unexpected token <"), state())).toMatchObject({ action: "invalid_response" });
    expect(classifyError(new Error("odd"), state())).toMatchObject({ action: "error", kind: "transport" });
  });
});
