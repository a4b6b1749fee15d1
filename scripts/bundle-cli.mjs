#!/usr/bin/env node
/**
 * Bundle the command line (`npm run build`, after `tsc`): esbuild (https://esbuild.github.io/) joins the compiled
 * `dist/cli/main.js`, the rest of `dist/` and the dependencies into `dist/bin/ipi-judge.js`, the package's `bin`,
 * with one chunk per command loaded on demand (`--splitting`) beside it in `dist/bin/`.
 *
 * Why: a `label` run loaded ~330 modules one by one (154 of them the `openai` SDK's, 95 zod's) before its first
 * request: ~0.12 s of a 15 s run at 300 ms a request, a measurable share of the realistic-latency target
 * (issue 15, README-bench.md). The library (`dist/index.js`) stays plain `tsc` output.
 *
 * Rules the bundle keeps:
 * - the chunks sit in `dist/bin/`, the same depth as `dist/cli/`, so files found relative to a module
 *   (`../../prompts`, `../../schemas`) resolve alike from both;
 * - modules loaded by name at run time (`createRequire`: the tokenizer encodings) stay in `node_modules`;
 * - CommonJS dependencies inside the ES module bundle get a real `require` (the banner).
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
  await build({
    entryPoints: { "ipi-judge": path.join(ROOT, "dist/cli/main.js") },
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
    legalComments: "linked",
    logLevel: "warning",
  });
} catch {
  process.exitCode = 1; // esbuild has printed what failed
}
