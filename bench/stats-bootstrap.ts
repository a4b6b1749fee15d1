/**
 * Benchmark of the Cohen's kappa percentile bootstrap (src/stats/bootstrap.ts): B = 10 000 resamples of
 * n = 40 000 items over 6 categories, on one core, for both resampling modes (same distribution).
 * Run: `npx tsx bench/stats-bootstrap.ts [B] [n]`. Prints timings; asserts nothing.
 */
import { bootstrapKappa } from "../src/stats/bootstrap.js";
import { cohenKappa } from "../src/stats/cohen.js";

const B = Number(process.argv[2] ?? 10_000);
const n = Number(process.argv[3] ?? 40_000);
const q = 6;

// A realistic 6-category judge × human table with n items: mostly agreement, some confusion near the diagonal.
const shares = [
  [0.3, 0.02, 0.01, 0.005, 0.002, 0.003],
  [0.02, 0.12, 0.01, 0.005, 0.002, 0.003],
  [0.01, 0.01, 0.1, 0.01, 0.002, 0.002],
  [0.005, 0.005, 0.01, 0.15, 0.01, 0.005],
  [0.002, 0.002, 0.002, 0.01, 0.08, 0.004],
  [0.003, 0.003, 0.002, 0.005, 0.004, 0.07],
];
const total = shares.flat().reduce((s, x) => s + x, 0);
const table = shares.map((r) => r.map((x) => Math.floor((x / total) * n)));
table[0][0] += n - table.flat().reduce((s, x) => s + x, 0);

const k = cohenKappa(table);
console.log(`table: q = ${q}, n = ${n}, kappa = ${k.value?.toFixed(4)}, ASE = ${k.se?.toFixed(5)}`);

for (const resampling of ["multinomial", "items"] as const) {
  const t0 = performance.now();
  const r = bootstrapKappa(table, { B, seed: 20240601, resampling });
  const ms = performance.now() - t0;
  console.log(
    `${resampling.padEnd(11)} B = ${B}: ${ms.toFixed(0)} ms  CI [${r.lower?.toFixed(4)}, ${r.upper?.toFixed(4)}]  undefined ${r.undefined_resamples}  seed ${r.seed}`,
  );
}
