/** src/ingest/resolved.ts: `resolvedPath` is exactly `path.resolve`, on clean absolute paths and on every other kind. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lastSegments, resolvedPath } from "../../src/ingest/resolved.js";

describe("resolvedPath", () => {
  it("equals path.resolve on listed and generated paths", () => {
    const listed = ["/", "//", "/a", "/a/", "/a/.", "/a/..", "/a/./b", "/a/../b", "/a//b", "a", "a/b.json", ".", "..", "./a", "/a/.b", "/a/..b/c", "/a/b..", "/.json", "", "/a/b\\c"];
    for (const p of listed) expect(resolvedPath(p), p).toBe(path.resolve(p));
    const alphabet = ["/", "a", ".", "..", "b.json", "\\", " "];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let i = 0; i < 20000; i++) {
      let p = rnd(5) === 0 ? "" : "/";
      for (let k = 1 + rnd(8); k > 0; k--) p += alphabet[rnd(alphabet.length)];
      expect(resolvedPath(p), p).toBe(path.resolve(p));
    }
  });
});

describe("lastSegments", () => {
  it("equals split, filter and slice on generated paths", () => {
    const alphabet = ["/", "a", ".", "bc", "d.json", ""];
    let seed = 11;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let i = 0; i < 20000; i++) {
      let p = "";
      for (let k = rnd(12); k > 0; k--) p += alphabet[rnd(alphabet.length)];
      for (const n of [1, 5]) {
        const parts = p.split(path.sep).filter((s) => s !== "");
        expect(lastSegments(p, n), p).toEqual(parts.length < n ? undefined : parts.slice(-n));
      }
    }
  });
});
