import path from "node:path";
import { describe, expect, it } from "vitest";
import { PathTable } from "../../src/ingest/walk.js";

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
