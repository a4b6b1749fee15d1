/**
 * RealFolders (src/ingest/real-folders.ts) answers as the map of full real paths it replaced in SameFiles: the same
 * `get` for every path recorded or not, its resolved name kept only when it differs from the real path.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RealFolders, type FirstMet } from "../../src/ingest/real-folders.js";

const R = (...p: string[]) => path.join(path.sep, "r", ...p);

describe("RealFolders", () => {
  it("gives back where a folder was first met; a folder only passed through, or never met, is undefined", () => {
    const t = new RealFolders();
    t.set(R("a", "b"), { named: R("a", "b"), root: "in/a" });
    t.set(R("z"), { named: path.resolve("in", "link"), root: "in/link" });
    expect(t.get(R("a", "b"))).toEqual({ named: R("a", "b"), root: "in/a" });
    expect(t.get(R("z"))).toEqual({ named: path.resolve("in", "link"), root: "in/link" });
    expect(t.get(R("a"))).toBeUndefined(); // a component of a recorded path, not recorded itself
    expect(t.get(R("a", "b", "c"))).toBeUndefined();
    expect(t.get(R("x"))).toBeUndefined();
    expect(t.size).toBe(2);
  });

  it("a component name that looks like a code or holds the separator's neighbours stays distinct", () => {
    const t = new RealFolders();
    t.set(R("1"), { named: R("1"), root: "p" });
    t.set(R("a b", "1"), { named: R("a b", "1"), root: "q" });
    expect(t.get(R("1"))?.root).toBe("p");
    expect(t.get(R("a b", "1"))?.root).toBe("q");
    expect(t.get(R("a b"))).toBeUndefined();
  });

  it("answers as a Map<string, FirstMet> over many paths, roots and linked names, replacing included", () => {
    const t = new RealFolders();
    const m = new Map<string, FirstMet>();
    const roots = Array.from({ length: 300 }, (_, i) => `in/${i}`); // more than a byte's worth of root numbers
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const paths: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const real = R(...Array.from({ length: 1 + rnd(4) }, () => `d${rnd(6)}`));
      paths.push(real);
      const met = { named: rnd(5) === 0 ? path.resolve("link", String(i)) : real, root: roots[rnd(roots.length)] };
      if (!m.has(real) || rnd(10) === 0) {
        m.set(real, met);
        t.set(real, met);
      }
    }
    for (const p of [...paths, R("nope"), R("d1", "d2", "d3", "d4", "d5")]) expect(t.get(p)).toEqual(m.get(p));
    expect(t.size).toBe(m.size);
  });
});
