import { describe, expect, it } from "vitest";
import { DigestSet } from "../../src/run/batch-keys.js";

describe("DigestSet", () => {
  it("agrees with a Set over random adds, deletes and lookups (growth and backward-shift deletion)", () => {
    const s = new DigestSet(1);
    const ref = new Set<string>();
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let k = 0; k < 60_000; k++) {
      const key = `traj-${Math.floor(rnd() * 20_000)}\u0000judge\u0000${Math.floor(rnd() * 2)}`;
      const op = rnd();
      if (op < 0.5) {
        s.add(key);
        ref.add(key);
      } else if (op < 0.8) expect(s.delete(key)).toBe(ref.delete(key));
      else expect(s.has(key)).toBe(ref.has(key));
      expect(s.size).toBe(ref.size);
    }
    for (const k of ref) expect(s.has(k)).toBe(true);
    for (let i = 0; i < 20_000; i++) {
      const key = `traj-${i}\u0000judge\u00000`;
      expect(s.has(key)).toBe(ref.has(key));
    }
  });
});
