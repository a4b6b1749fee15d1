import type { SendContext } from "../../src/providers/send.js";

/** A fake API key that the transport tests check never leaks. */
export const TEST_KEY = "sk-test-SECRETKEY-9f8e7d6c5b4a";

/**
 * A transport context that records waits instead of sleeping (jitter fixed at 0.5). Its request timeout is 30 s:
 * a loopback reply must not race a short bound on a loaded machine (it was 2 s); a test of the timeout itself sets
 * a small `timeoutMs` against a server that hangs or drips.
 */
export function fastCtx(extra: Partial<SendContext> = {}): SendContext & { waits: number[] } {
  const waits: number[] = [];
  return {
    judgeId: "j1",
    timeoutMs: 30_000,
    secrets: [TEST_KEY],
    ...extra,
    waits,
    options: { sleep: async (ms: number) => void waits.push(ms), random: () => 0.5, ...(extra.options ?? {}) },
  } as SendContext & { waits: number[] };
}
