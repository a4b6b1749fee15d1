/**
 * The house rules of docs/ARCHITECTURE.md that a reader can check by reading `src/`: imports go down the layer
 * order of `arch-layers.cjs` (a shared piece lives below the stages that use it), hence no folder-level cycle; no
 * file-level cycle; no source file over 600 lines (generated validators excepted); no function over 150 lines.
 * Two checkers of the layers agree: our own folder graph (regex over import specifiers, type-only imports
 * included) and dependency-cruiser's (`.dependency-cruiser.cjs`, `npm run arch`), run here through its API.
 */
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import ts from "typescript";
import { cruise } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/paths.js";

const require = createRequire(import.meta.url);
const { LAYERS } = require(path.join(ROOT, "arch-layers.cjs")) as { LAYERS: string[][] };

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

/** The layer name of a `src/`-relative file: its folder, or for a top-level file its name (`types`, `index`). */
const layerName = (file: string): string => (file.includes("/") ? file.split("/")[0]! : file.replace(/\.ts$/, ""));

/** Layer name -> its position in LAYERS (0 = top). */
const RANK = new Map(LAYERS.flatMap((l, i) => l.map((n) => [n, i] as const)));

/** Every import of `src/` that crosses folders and does not go down the layer order: `from -> to`. */
function upwardImports(): string[] {
  const bad: string[] = [];
  for (const f of sourceFiles()) {
    for (const i of importsOf(f)) {
      const a = layerName(f);
      const b = layerName(i);
      if (a !== b && !(RANK.get(a)! < RANK.get(b)!)) bad.push(`${f} -> ${i}`);
    }
  }
  return bad.sort();
}

/**
 * Functions over 150 lines allowed for now (issue 27), each entry `file: name`. Empty: labelRun, dryRun,
 * extractValues and convertInspectSample were split; a function that must stay long is listed here with its reason.
 */
const LONG_FUNCTION_ALLOW = new Set<string>([]);

/**
 * Every function, method, arrow or constructor body in `src/` (generated validators excepted) with its length in
 * lines, first line to last, named by its declaration or the variable / property / call it is passed to.
 */
function functionLengths(): Array<{ file: string; name: string; lines: number }> {
  const out: Array<{ file: string; name: string; lines: number }> = [];
  for (const file of sourceFiles().filter((f) => !f.endsWith(".generated.ts"))) {
    const sf = ts.createSourceFile(file, fs.readFileSync(path.join(SRC, file), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node, context: string): void => {
      let name = context;
      if ((ts.isVariableDeclaration(n) || ts.isPropertyAssignment(n) || ts.isPropertyDeclaration(n)) && n.name) name = n.name.getText(sf);
      if (ts.isFunctionLike(n) && "body" in n && n.body) {
        const own = n.name ? n.name.getText(sf) : ts.isConstructorDeclaration(n) ? "constructor" : `${context || "(anonymous)"} (callback)`;
        const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
        const last = sf.getLineAndCharacterOfPosition(n.end).line;
        out.push({ file, name: own, lines: last - first + 1 });
        name = own;
      }
      ts.forEachChild(n, (c) => visit(c, name));
    };
    visit(sf, "");
  }
  return out;
}

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

  it("every folder of src/ has its place in the layer order (arch-layers.cjs)", () => {
    const names = new Set(sourceFiles().map(layerName));
    expect([...names].filter((n) => !RANK.has(n)).sort()).toEqual([]);
  });

  it("every import goes down the layer order: no upward or sideways arrow between folders, so no folder-level cycle", () => {
    expect(upwardImports()).toEqual([]);
  });

  it("dependency-cruiser (.dependency-cruiser.cjs) finds no violation either: layers and no file-level cycle", async () => {
    const config = require(path.join(ROOT, ".dependency-cruiser.cjs"));
    const prev = process.cwd();
    process.chdir(ROOT);
    try {
      const r = await cruise(["src"], { ruleSet: config, ...config.options, validate: true }, undefined, {
        tsConfig: ts.readConfigFile(path.join(ROOT, "tsconfig.json"), ts.sys.readFile).config,
      });
      const out = r.output as { summary: { violations: Array<{ rule: { name: string }; from: string; to: string }>; totalCruised: number } };
      expect(out.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
      // it saw the whole tree (a resolution problem would cruise src/index.ts alone and find nothing)
      expect(out.summary.totalCruised).toBe(sourceFiles().length);
    } finally {
      process.chdir(prev);
    }
  });

  it("the checker's rules are the layer order: each folder may import exactly the folders below it", () => {
    const config = require(path.join(ROOT, ".dependency-cruiser.cjs")) as { forbidden: Array<{ name: string; to: { path?: string } }> };
    const all = LAYERS.flat();
    for (const [i, layer] of LAYERS.entries()) {
      for (const name of layer) {
        const rule = config.forbidden.find((r) => r.name === `layer-${name}`);
        const below = LAYERS.slice(i + 1).flat();
        const forbidden = all.filter((n) => n !== name && !below.includes(n));
        if (forbidden.length === 0) continue;
        const re = new RegExp(rule!.to.path!);
        expect(all.filter((n) => n !== name && re.test(`src/${n}/x.ts`)).sort(), name).toEqual(forbidden.sort());
      }
    }
  });

  it("no function in src/ is over 150 lines (the allow-list: functions other helpers are splitting)", () => {
    const long = functionLengths().filter((x) => x.lines > 150);
    const key = (x: { file: string; name: string }) => `${x.file}: ${x.name}`;
    expect(long.filter((x) => !LONG_FUNCTION_ALLOW.has(key(x))).map((x) => `${key(x)} (${x.lines} lines)`)).toEqual([]);
    // an entry whose function is split (or gone) leaves the list
    const stillLong = new Set(long.map(key));
    expect([...LONG_FUNCTION_ALLOW].filter((k) => !stillLong.has(k))).toEqual([]);
  });

  it("the function-length scanner measures: a 151-line function is found, a 150-line one is not", () => {
    const body = (n: number) => `function f${n}() {\n${"  x();\n".repeat(n - 2)}}\n`;
    for (const [n, found] of [[151, true], [150, false]] as const) {
      const sf = ts.createSourceFile("x.ts", body(n), ts.ScriptTarget.Latest, true);
      const fn = sf.statements[0] as ts.FunctionDeclaration;
      const lines = sf.getLineAndCharacterOfPosition(fn.end).line - sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line + 1;
      expect(lines > 150).toBe(found);
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
