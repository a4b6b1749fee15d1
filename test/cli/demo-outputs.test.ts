import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

// The README's offline demo writes fixed names into the clone; .gitignore must list each, so `git status` stays clean.
describe("the offline demo's outputs are ignored by git", () => {
  it("every top-level name the demo block writes (--out, the filled CSV) is in .gitignore", () => {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const start = readme.indexOf("To try every step offline");
    expect(start).toBeGreaterThan(0);
    const block = readme.slice(start).match(/```sh\n([\s\S]*?)```/)![1];
    const names = new Set<string>();
    for (const m of block.matchAll(/--out (\S+)/g)) names.add(m[1].split("/")[0]);
    for (const m of block.matchAll(/save it as (\S+)/g)) names.add(m[1]);
    expect([...names].sort()).toEqual(["report.html", "study1"]);
    const ignored = fs.readFileSync(path.join(ROOT, ".gitignore"), "utf8").split("\n").map((l) => l.trim().replace(/^\//, "").replace(/\/$/, ""));
    for (const n of names) expect(ignored, `${n} not in .gitignore`).toContain(n);
  });
});
