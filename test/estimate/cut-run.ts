/**
 * A run whose like-for-like cells cut a row, with a human sample (shared by test/estimate/group-cells.test.ts and
 * test/cli/estimate-table-cut.test.ts): model M ran attacks A and B on u0..u19 under no_defense but attack A alone
 * under D, so its no_defense row is over the 20 A cells (20 B runs left out); model G ran the baseline alone (A, B on
 * u0..u9). The judge (`gpt`) says full compliance on every third run; the human sample (strata M and G, 26 and 10
 * labelled; the 3 unattacked runs a stratum U, 2 labelled) agrees with it but on a few items, where the humans say the opposite.
 */
import fs from "node:fs";
import path from "node:path";
import { writeRun, type Run } from "./unlike-run.js";

const us = (n: number) => Array.from({ length: n }, (_, i) => `u${String(i).padStart(2, "0")}`);
export const CUT_RUNS: Run[] = [
  ...["A", "B"].flatMap((attack) => us(20).map((user) => ({ model: "M", condition: "no_defense", attack, user }))),
  ...us(20).map((user) => ({ model: "M", condition: "D", attack: "A", user })),
  ...["A", "B"].flatMap((attack) => us(10).map((user) => ({ model: "G", condition: "no_defense", attack, user }))),
].map((r, k) => ({ ...r, full: k % 3 === 0 }));

/** Index k of CUT_RUNS (its id `<name>/<k>`) labelled, and where the humans disagree with the judge. */
export const LABELLED = [
  ...[0, 2, 4, 6, 8, 10, 12, 14, 16, 18], // M no_defense A
  ...[20, 23, 26, 29, 32, 35, 38, 39], // M no_defense B
  ...[40, 43, 46, 49, 52, 55, 58, 59], // M D A
  ...[60, 62, 64, 66, 68, 70, 72, 74, 76, 78], // G
];
export const HUMAN_DISAGREES = new Set([2, 4, 23, 43, 62]);

/** The run folder and a human-label file for it (JSONL, two annotators alike, strata by model). */
export function writeCutRun(tmp: string, name: string): { dir: string; human: string; humanOf: (k: number) => boolean } {
  const dir = writeRun(tmp, name, CUT_RUNS);
  const humanOf = (k: number) => (HUMAN_DISAGREES.has(k) ? !CUT_RUNS[k].full : !!CUT_RUNS[k].full);
  const N = { M: 60, G: 20 } as Record<string, number>;
  const n = { M: 26, G: 10 } as Record<string, number>;
  const rows = LABELLED.flatMap((k) =>
    ["a", "b"].map((annotator) => {
      const m = CUT_RUNS[k].model;
      return JSON.stringify({ trajectory_id: `${name}/${k}`, annotator, label: humanOf(k) ? "full_compliance" : "unaffected", stratum: m, stratum_size: N[m], inclusion_probability: n[m] / N[m] });
    }),
  );
  // the 3 unattacked runs (one per model and condition) are a stratum of their own, 2 labelled: the strata cover the run
  for (const id of [`${name}/M/no_defense/none`, `${name}/M/D/none`]) for (const annotator of ["a", "b"]) rows.push(JSON.stringify({ trajectory_id: id, annotator, label: "not_exposed", stratum: "U", stratum_size: 3, inclusion_probability: 2 / 3 }));
  const human = path.join(tmp, `${name}-human.jsonl`);
  fs.writeFileSync(human, rows.join("\n") + "\n");
  return { dir, human, humanOf };
}

/**
 * By hand: a domain's calibrated estimate over the rows (indexes of CUT_RUNS) `keep` selects: the judge's rate there
 * plus the mean human-minus-judge difference of its labelled ones (one stratum, so equal weights).
 */
export function cutByHand(keep: (k: number) => boolean, humanOf: (k: number) => boolean): number {
  const dom = CUT_RUNS.map((_, k) => k).filter(keep);
  const judge = dom.filter((k) => CUT_RUNS[k].full).length / dom.length;
  const lab = dom.filter((k) => LABELLED.includes(k));
  return judge + lab.reduce((s, k) => s + (humanOf(k) ? 1 : 0) - (CUT_RUNS[k].full ? 1 : 0), 0) / lab.length;
}

/** Whether row `k` is model M under no_defense (and of `attack`, when given). */
export const isCutM = (k: number, attack?: string): boolean => CUT_RUNS[k].model === "M" && CUT_RUNS[k].condition === "no_defense" && (!attack || CUT_RUNS[k].attack === attack);
