/**
 * Instructions per item per stage from two callgrind runs of `bench/llm-stages.ts` (see its docstring): each run's
 * last 12 numbered dumps are the stage marks (`process.getegid()`; Node calls `getegid` itself at start-up too).
 * Usage: `node bench/llm-stages-count.mjs OUT_PREFIX_A N_A OUT_PREFIX_B N_B` (prefix = the file without `.K`).
 */
import fs from "node:fs";

const STAGES = ["setup", "read+parse", "convert+validate", "surfaces", "index row+hash", "render", "request body", "(replies, untimed)", "reply parse", "quote verification", "verdict build", "store append"];

/** The instruction count of each stage of one run (its dumps' `summary:` lines). */
function counts(prefix) {
  const dir = prefix.slice(0, prefix.lastIndexOf("/") + 1) || "./";
  const base = prefix.slice(prefix.lastIndexOf("/") + 1);
  const nums = fs.readdirSync(dir).filter((f) => f.startsWith(base + ".")).map((f) => Number(f.slice(base.length + 1))).filter(Number.isInteger).sort((a, b) => a - b);
  const marks = nums.slice(-STAGES.length);
  return marks.map((k) => Number(/^summary: (\d+)/m.exec(fs.readFileSync(`${dir}${base}.${k}`, "utf8"))[1]));
}

const [pa, na, pb, nb] = process.argv.slice(2);
const a = counts(pa);
const b = counts(pb);
const rows = STAGES.map((s, i) => ({ stage: s, perItem: (b[i] - a[i]) / (Number(nb) - Number(na)) })).filter((r) => r.stage !== "setup" && !r.stage.startsWith("("));
const total = rows.reduce((x, r) => x + r.perItem, 0);
for (const r of rows) console.log(`${r.stage.padEnd(20)} ${(r.perItem / 1000).toFixed(1).padStart(8)} K instr/item  ${((100 * r.perItem) / total).toFixed(1)}%`);
console.log(`${"total".padEnd(20)} ${(total / 1000).toFixed(1).padStart(8)} K instr/item`);
