/**
 * The scale section's baseline (`bench/scale.ts`): read and `JSON.parse` the first N `*.json` files under the
 * given folders, in the order `label` reads them (entries sorted by name, UTF-16 order; names starting with `.`
 * skipped; symbolic links followed), keeping nothing. Usage: `node bench/bare-parse.mjs N dir...`; prints the count.
 */
import fs from "node:fs";
import path from "node:path";

const [limitArg, ...dirs] = process.argv.slice(2);
const limit = Number(limitArg);
let n = 0;
let bytes = 0;

function walk(dir) {
  const ents = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith("."));
  ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of ents) {
    if (n >= limit) return;
    const full = path.join(dir, e.name);
    const isDir = e.isDirectory() || (e.isSymbolicLink() && fs.statSync(full).isDirectory());
    if (isDir) walk(full);
    else if (e.name.endsWith(".json")) {
      const text = fs.readFileSync(full, "utf8");
      bytes += text.length;
      JSON.parse(text);
      n++;
    }
  }
}
for (const d of dirs) if (n < limit) walk(d);
console.log(JSON.stringify({ files: n, chars: bytes }));
