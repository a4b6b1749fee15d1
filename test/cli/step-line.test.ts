import { afterEach, describe, expect, it, vi } from "vitest";
import { stepLine } from "../../src/cli/read-progress.js";

describe("stepLine: the status of a long analysis step (issue 26)", () => {
  afterEach(() => vi.restoreAllMocks());
  it("writes one line on stderr when enabled and clears it when done; nothing when disabled", () => {
    const writes: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => (writes.push(String(s)), true));
    stepLine("comparing 10 observations", false).done();
    expect(writes).toEqual([]);
    const s = stepLine("comparing 10 observations", true);
    expect(writes).toEqual(["\r\x1b[Kcomparing 10 observations..."]);
    s.done();
    expect(writes[1]).toBe("\r\x1b[K");
  });
});
