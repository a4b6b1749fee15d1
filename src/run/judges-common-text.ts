/**
 * `label`'s summary lines of the judges side by side on the runs every one labelled (./judges-common.ts): a heading
 * with the counts and each judge's own coverage, then a table per (agent model, condition) and overall, each judge's
 * asr_goal and asr_behaviour with their counts over the shared runs.
 */
import { quoted } from "../format/quote-name.js";
import { textTable } from "../format/text-table.js";
import { wrapLine } from "../format/wrap-text.js";
import type { RateFigure } from "../stats/rate-figure.js";
import type { JudgesCommon } from "./judges-common.js";
import { rateCaveatMarker } from "../verdict/rate-caveat.js";

const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
const fig = (r: RateFigure) => (r.rate === null ? "undefined" : `${(100 * r.rate).toFixed(1)} (${r.count}/${r.n})`);

/**
 * The lines (none when `c` is undefined). Every compared judge labelled the same runs: one line saying so (their
 * figures above are over the same runs). Otherwise the heading and the table.
 */
export function judgesCommonLines(c: JudgesCommon | undefined): string[] {
  if (!c) return [];
  const n = (x: number) => x.toLocaleString("en-US");
  const own = c.per_judge.map((j) => `${quoted(j.judge_id)} ${n(j.own_labelled)} (coverage ${pct(j.own_coverage)})`).join(", ");
  const left = c.left_out.length ? `; left out, no label on any attacked run: ${c.left_out.map(quoted).join(", ")}` : "";
  if (c.same_runs) return wrapLine(`judges side by side: every judge labelled the same ${n(c.n)} of the ${n(c.attacked)} attacked runs (${own}): the figures above are over the same runs${left}`);
  const head = wrapLine(
    `judges side by side over the ${n(c.n)} of the ${n(c.attacked)} attacked runs every judge labelled (each judge's own figures above are over the runs it labelled: ${own}; ` +
      `a difference there may be the runs, not the judging)${left}:`,
  );
  // a broken judge's columns carry its mark (break2_53: "0.0% beside 56.3% over the same runs" read as a judging difference)
  const mark = (i: number) => rateCaveatMarker(c.per_judge[i]?.rate_caveat ? [c.per_judge[i].rate_caveat!] : []);
  const rows: string[][] = [["agent model", "condition", "n / attacked", ...c.judges.flatMap((j, i) => [`${j} asr_goal %${mark(i)}`, `${j} asr_behaviour %${mark(i)}`])]];
  for (const g of c.by_model_condition) rows.push([g.agent_model, g.condition, `${n(g.n)} / ${n(g.attacked)}`, ...g.per_judge.flatMap((j) => [fig(j.asr_goal), fig(j.asr_behaviour)])]);
  rows.push(["(all)", "", `${n(c.n)} / ${n(c.attacked)}`, ...c.per_judge.flatMap((j) => [fig(j.asr_goal), fig(j.asr_behaviour)])]);
  return [...head, ...textTable(rows, { indent: "    " })];
}
