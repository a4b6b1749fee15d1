/**
 * The house rules of docs/ARCHITECTURE.md that a reader can check by reading `src/`: imports go down the data flow
 * (a shared piece lives below the stages that use it), no folder-level cycle between stages, no source file over 600
 * lines (generated validators excepted). Reads the source text only; nothing runs.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/paths.js";

const SRC = path.join(ROOT, "src");

/** Every `.ts` file under `src/`, as a path relative to `src/` with forward slashes. */
function sourceFiles(dir = SRC): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith(".ts")) out.push(path.relative(SRC, p).split(path.sep).join("/"));
  }
  return out.sort();
}

/** The `src/`-relative modules a file imports (relative specifiers only, `.js` mapped back to `.ts`). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
    const abs = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]!));
    out.push(abs.replace(/\.js$/, ".ts"));
  }
  return out;
}

/** The folder of a `src/`-relative file (its first segment; "" for a file at the top). */
const folderOf = (file: string): string => (file.includes("/") ? file.split("/")[0]! : "");

describe("house rules", () => {
  it("contentSha256 lives in io/ and sample/, report/, view/ take it from there, not from run/", () => {
    expect(fs.readFileSync(path.join(SRC, "io/hash.ts"), "utf8")).toMatch(/export function contentSha256\(/);
    for (const f of sourceFiles().filter((f) => ["sample", "report", "view"].includes(folderOf(f)))) {
      const text = fs.readFileSync(path.join(SRC, f), "utf8");
      if (/\bcontentSha256\b/.test(text) && /import[^;]*\bcontentSha256\b[^;]*;/.test(text)) {
        expect(importsOf(f).filter((i) => folderOf(i) === "run"), `${f} imports contentSha256 from run/`).toEqual([]);
      }
    }
  });

  it("no two of agree/, committee/, run/ import each other (no folder-level cycle between them)", () => {
    const stages = ["agree", "committee", "run"];
    const arrows = new Set<string>();
    for (const f of sourceFiles().filter((f) => stages.includes(folderOf(f)))) {
      for (const i of importsOf(f)) if (stages.includes(folderOf(i)) && folderOf(i) !== folderOf(f)) arrows.add(`${folderOf(f)} -> ${folderOf(i)}`);
    }
    const cycles = [...arrows].filter((a) => arrows.has(a.split(" -> ").reverse().join(" -> ")));
    expect(cycles).toEqual([]);
  });

  it("no source file is over 600 lines (generated *.generated.ts excepted)", () => {
    const long = sourceFiles()
      .filter((f) => !f.endsWith(".generated.ts"))
      .map((f) => ({ f, lines: fs.readFileSync(path.join(SRC, f), "utf8").split("\n").length - 1 }))
      .filter((x) => x.lines > 600)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });
});
