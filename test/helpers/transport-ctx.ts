import type { SendContext } from "../../src/providers/send.js";

/** A fake API key that the transport tests check never leaks. */
export const TEST_KEY = "sk-test-SECRETKEY-9f8e7d6c5b4a";

/** A transport context that records waits instead of sleeping (jitter fixed at 0.5). */
export function fastCtx(extra: Partial<SendContext> = {}): SendContext & { waits: number[] } {
  const waits: number[] = [];
  return {
    judgeId: "j1",
    timeoutMs: 2000,
    secrets: [TEST_KEY],
    ...extra,
    waits,
    options: { sleep: async (ms: number) => void waits.push(ms), random: () => 0.5, ...(extra.options ?? {}) },
  } as SendContext & { waits: number[] };
}
