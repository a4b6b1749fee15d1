import path from "node:path";
import { describe, expect, it } from "vitest";
import { PathTable } from "../../src/ingest/walk.js";
import { IdSlots } from "../../src/store/compact.js";

describe("PathTable (compact per-file path strings, issue 26)", () => {
  it("gives back exactly the string it was given: files, JSON Lines rows, a bare name, a folder with | in it", () => {
    const t = new PathTable<string>();
    const cases: Record<string, string> = {
      a: path.join(path.sep, "runs", "m", "banking", "user_task_0", "none.json"),
      b: path.join(path.sep, "runs", "m", "banking", "user_task_0", "x.jsonl") + ":12",
      c: "plain.json",
      d: path.join(path.sep, "we|ird", "f|1.json") + ":3",
    };
    for (const [k, p] of Object.entries(cases)) t.set(k, p);
    for (const [k, p] of Object.entries(cases)) expect(t.get(k)).toBe(p);
    expect(t.has("a")).toBe(true);
    expect(t.get("zz")).toBeUndefined();
    t.set("a", "other.json");
    expect(t.get("a")).toBe("other.json");
  });
});

describe("PathTable with a `same` table (the read's seen -> firstFile, issue 26)", () => {
  const f = (...p: string[]) => path.join(path.sep, "runs", ...p);
  it("gives back the path set, whether it repeats the `same` table's or not", () => {
    const ids = new IdSlots();
    const first = new PathTable<string>(ids);
    const seen = new PathTable<string>(ids, { same: first });
    first.set("a", f("m", "a.json"));
    first.set("b", f("m", "b.json"));
    seen.set("a", f("m", "a.json")); // the same path: a mark
    seen.set("b", f("m", "b.jsonl") + ":3"); // another path: its own
    seen.set("c", f("n", "c.json")); // not in `first` at all
    expect(seen.get("a")).toBe(f("m", "a.json"));
    expect(seen.get("b")).toBe(f("m", "b.jsonl") + ":3");
    expect(seen.get("c")).toBe(f("n", "c.json"));
    expect(seen.has("a") && seen.has("b") && seen.has("c")).toBe(true);
    expect(seen.has("d")).toBe(false);
    expect(seen.get("d")).toBeUndefined();
    expect(first.get("c")).toBeUndefined();
    first.set("c", f("other", "c.json")); // unset before: allowed; seen's own path stays
    expect(seen.get("c")).toBe(f("n", "c.json"));
    // a marked key's own path may change (it becomes its own again)
    seen.set("a", f("z", "a.json"));
    expect(seen.get("a")).toBe(f("z", "a.json"));
    expect(first.get("a")).toBe(f("m", "a.json"));
  });

  it("refuses to change a path another table may read through it, and a `same` table over other key slots", () => {
    const ids = new IdSlots();
    const first = new PathTable<string>(ids);
    new PathTable<string>(ids, { same: first });
    first.set("a", f("a.json"));
    expect(() => first.set("a", f("b.json"))).toThrow(/cannot change/);
    expect(first.get("a")).toBe(f("a.json"));
    expect(() => new PathTable<string>(new IdSlots(), { same: first })).toThrow(/share the key slots/);
  });
});
