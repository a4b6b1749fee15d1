#!/usr/bin/env node
/**
 * Bundle the page of `ipi-judge view` (`npm run build`, after `tsc`): esbuild (https://esbuild.github.io/) joins
 * `src/view/client/app.ts` and its modules into one browser script, `dist/view/assets/app.js` (the server serves
 * it as the page's only script; no inline script, so the page's Content-Security-Policy can forbid every other),
 * and copies `app.css` beside it. No dependency is bundled: the page uses the DOM alone.
 * Errors: exits 1 with esbuild's messages when the bundle cannot be built.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const OUT = path.join(ROOT, "dist/view/assets");
fs.mkdirSync(OUT, { recursive: true });
try {
  await build({
    entryPoints: [path.join(ROOT, "src/view/client/app.ts")],
    outfile: path.join(OUT, "app.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "chrome110",
    legalComments: "none",
    logLevel: "warning",
  });
  fs.copyFileSync(path.join(ROOT, "src/view/client/app.css"), path.join(OUT, "app.css"));
} catch (e) {
  if (!(e && Array.isArray(e.errors))) console.error(e);
  process.exitCode = 1;
}
