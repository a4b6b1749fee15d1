/** A brute-force reference for the signature judge's common-substring helpers (tests only). */
import type { Chunk } from "../../src/judges/signature/text.js";

/** Every maximal common run of >= m characters of `a` and `b`, by brute force over all diagonals (O(|a| |b| run)). */
export function bruteChunks(a: string, b: string, m: number): Chunk[] {
  const out: Chunk[] = [];
  for (let i = 0; i < a.length; i++) {
    for (let j = 0; j < b.length; j++) {
      if (i > 0 && j > 0 && a[i - 1] === b[j - 1]) continue;
      let len = 0;
      while (i + len < a.length && j + len < b.length && a[i + len] === b[j + len]) len++;
      if (len >= m) out.push({ aStart: i, bStart: j, length: len });
    }
  }
  return out;
}

/** A chunk as one comparable string. */
export const chunkKey = (c: Chunk) => `${c.aStart}:${c.bStart}:${c.length}`;
