#!/usr/bin/env node
/**
 * Bundle the command line and the library (`npm run build`, after `tsc`): esbuild (https://esbuild.github.io/)
 * joins the compiled `dist/cli/main.js` (the package's `bin`, `dist/bin/ipi-judge.js`) and `dist/index.js` (the
 * library's entry, `dist/bin/index.js`), the rest of `dist/` and the dependencies into `dist/bin/`, with chunks
 * shared by both and one chunk per command loaded on demand (`--splitting`).
 *
 * Why: a `label` run loaded ~330 modules one by one (154 of them the `openai` SDK's, 95 zod's) before its first
 * request: ~0.12 s of a 15 s run at 300 ms a request, a measurable share of the realistic-latency target
 * (issue 15, README-bench.md). Leaving the dependencies in node_modules (esbuild `packages: "external"`) made
 * `label samples/agentdojo --limit 1` take 2.0 times as long (best of 7: 2088 ms against 1028 ms, load average 21;
 * issue 27). So the dependencies are bundled, and the package installs only what the bundle does not hold
 * (`gpt-tokenizer`, loaded by name): each dependency ships once (issue 27). The library is bundled too, so a user
 * of `import("ipi-judge")` runs the same code as the command, not a second copy of it with its own dependencies.
 *
 * Rules the bundle keeps:
 * - the chunks sit in `dist/bin/`, the same depth as `dist/cli/`, so files found relative to a module
 *   (`../../prompts`, `../../schemas`, `../view/assets`) resolve alike from both;
 * - modules loaded by name at run time (`createRequire`: the tokenizer encodings) stay in `node_modules`;
 * - CommonJS dependencies inside the ES module bundle get a real `require` (the banner);
 * - source maps are written for development (stack traces with `node --enable-source-maps` name `src/` lines, esbuild following tsc's maps)
 *   without the sources inlined (`sourcesContent: false`: 3 MB instead of 13 MB), and are not packed: the
 *   bundle is not minified, so a user's stack trace names readable functions already;
 * - the licence of every package whose code is copied into the bundle is written beside it,
 *   `dist/bin/THIRD-PARTY-NOTICES.txt` (name, version, licence; each distinct licence text once, after the
 *   packages that carry it: the ~200 `@stdlib` packages share one Apache-2.0 text).
 * Errors: exits 1 with esbuild's messages when the bundle cannot be built.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const OUT = path.join(ROOT, "dist/bin");
fs.rmSync(OUT, { recursive: true, force: true }); // chunk names carry a hash: no stale chunk stays behind
try {
  const result = await build({
    // signature-worker: the signature judge's worker thread (src/judges/signature/pool.ts finds it beside the chunks)
    entryPoints: {
      "ipi-judge": path.join(ROOT, "dist/cli/main.js"),
      index: path.join(ROOT, "dist/index.js"),
      "signature-worker": path.join(ROOT, "dist/judges/signature/worker.js"),
    },
    outdir: OUT,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // jsonc-parser's "main" is a UMD build whose require() calls esbuild cannot follow; its ES module build is whole
    mainFields: ["module", "main"],
    banner: { js: 'import { createRequire as __ipiCreateRequire } from "node:module";\nconst require = __ipiCreateRequire(import.meta.url);' },
    chunkNames: "[name]-[hash]",
    // stack traces (IPI_JUDGE_DEBUG=1) name the bundle's lines; `node --enable-source-maps` maps them to src/
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "none", // the licences are written whole, below
    metafile: true,
    logLevel: "warning",
  });
  writeNotices(Object.keys(result.metafile.inputs));
} catch (e) {
  if (!(e && Array.isArray(e.errors))) console.error(e); // esbuild has printed its own errors
  process.exitCode = 1;
}

/**
 * Write `THIRD-PARTY-NOTICES.txt` for the packages the bundle holds code of.
 * @param inputs the bundle's input files (esbuild metafile keys, relative to the repository)
 * (a package without a licence file is named with its package.json licence, and warned about)
 */
function writeNotices(inputs) {
  const roots = new Set();
  for (const f of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(f.split(path.sep).join("/"));
    if (m) roots.add(m[1]);
  }
  /** licence text -> the packages that carry it (in name order) */
  const byText = new Map();
  for (const root of [...roots].sort()) {
    const dir = path.join(ROOT, root);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const file = fs.readdirSync(dir).find((n) => /^(licen[cs]e|copying)/i.test(n));
    const text = file ? fs.readFileSync(path.join(dir, file), "utf8").trim() : `(the package ships no licence file; its package.json says: ${pkg.license ?? "nothing"})`;
    if (!file) process.stderr.write(`bundle-cli: warning: ${root} ships no licence file; THIRD-PARTY-NOTICES.txt names its package.json licence\n`);
    const line = `${pkg.name} ${pkg.version} (${pkg.license ?? "licence not declared"})`;
    byText.set(text, [...(byText.get(text) ?? []), line]);
  }
  const parts = [...byText].map(([text, lines]) => `${lines.join("\n")}\n\n${text}\n`);
  const head = "The ipi-judge command and library (dist/bin/) hold code of these packages, each under its own licence (the text after each group of names):\n\n";
  fs.writeFileSync(path.join(OUT, "THIRD-PARTY-NOTICES.txt"), head + parts.join(`\n${"-".repeat(78)}\n\n`));
}
