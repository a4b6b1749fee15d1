/**
 * Benchmark of the Cohen's kappa percentile bootstrap (src/stats/bootstrap.ts): B = 10 000 resamples of
 * n = 40 000 items over 6 categories, on one core.
 *
 * Run: `npx tsx bench/stats-bootstrap.ts [B] [n] [--items]`. Prints timings; asserts nothing.
 * The timed line (`B = ...: ... ms`, parsed by bench/run.ts) is the library default, `multinomial`
 * resampling (the resampled table drawn directly as Multinomial(n, table/n), O(B·q²)). `--items` also times
 * the literal item-index resampling into a reused count table (O(B·n), same distribution); it is printed on a
 * separately labelled line because it is a reference path, not what `bootstrapKappa` does by default.
 */
import { bootstrapKappa } from "../src/stats/bootstrap.js";
import { cohenKappa } from "../src/stats/cohen.js";

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const withItems = process.argv.includes("--items");
const B = Number(args[0] ?? 10_000);
const n = Number(args[1] ?? 40_000);

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
console.log(`stats bootstrap: q = 6, n = ${n}, kappa = ${k.value?.toFixed(4)}, ASE = ${k.se?.toFixed(5)} (Wald half-width ${(1.96 * (k.se ?? 0)).toFixed(5)})`);

const t0 = performance.now();
const r = bootstrapKappa(table, { B, seed: 20240601 });
const ms = performance.now() - t0;
console.log(
  `bootstrapKappa (default multinomial resampling) B = ${B}: ${ms.toFixed(0)} ms  CI [${r.lower?.toFixed(4)}, ${r.upper?.toFixed(4)}]  undefined ${r.undefined_resamples}  seed ${r.seed}`,
);

if (withItems) {
  const t1 = performance.now();
  const ri = bootstrapKappa(table, { B, seed: 20240601, resampling: "items" });
  const msi = performance.now() - t1;
  console.log(
    `reference path, items resampling (${B} x ${n} index draws): ${msi.toFixed(0)} ms  CI [${ri.lower?.toFixed(4)}, ${ri.upper?.toFixed(4)}]  undefined ${ri.undefined_resamples}`,
  );
} else {
  console.log("(add --items to also time the item-index resampling path)");
}
