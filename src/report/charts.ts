/**
 * The report's charts: Vega-Lite specifications compiled to Vega and rendered to SVG strings in Node (Vega's
 * headless `View` with `renderer: "none"` and `toSVG()`: no browser, no canvas, no network; data are inline
 * values). Vega's SVG renderer escapes every text it writes, so labels taken from the data (model names, judge
 * ids) are inert, and long ones are cut (`./chart-labels.ts`). Each SVG gets its element ids prefixed so that
 * several SVGs in one page never collide.
 */
import * as vega from "vega";
import * as vl from "vega-lite";
import { BUCKETS } from "../types.js";
import { EXPOSURE_LOW_BELOW } from "../stats/rates.js";
import { cutChartLabels } from "./chart-labels.js";

/** Colours of the judges (by position), the committee, and the six buckets. */
export const JUDGE_COLORS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2", "#9d755d", "#72b7b2", "#e45756", "#bab0ac"];
export const COMMITTEE_COLOR = "#222222";
export const BUCKET_COLORS: Record<string, string> = {
  full_compliance: "#c0392b",
  partial_compliance: "#e67e22",
  flagged_refusal: "#2e86c1",
  task_refusal: "#8e44ad",
  unaffected: "#27ae60",
  not_exposed: "#95a5a6",
};

let chartCounter = 0;

/**
 * Render a Vega-Lite spec to an SVG string.
 * @param spec a Vega-Lite top-level spec with inline data (`data.values`).
 * @param idPrefix prefix for element ids inside the SVG (default: a counter).
 * @throws Error when the spec does not compile or render.
 */
export async function renderVegaLite(spec: vl.TopLevelSpec, idPrefix?: string): Promise<string> {
  // labels from the run files (model names, judge ids, conditions) cut to a readable length, kept apart (./chart-labels.ts)
  const vgSpec = vl.compile(cutChartLabels(spec)).spec;
  const view = new vega.View(vega.parse(vgSpec), { renderer: "none", logLevel: vega.Warn });
  try {
    const svg = await view.toSVG();
    const prefix = idPrefix ?? `c${++chartCounter}-`;
    return svg.replace(/\bid="([^"]+)"/g, `id="${prefix}$1"`).replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`);
  } finally {
    view.finalize();
  }
}

const AXIS_FONT = { labelFontSize: 11, titleFontSize: 12 };
const BASE = { config: { axis: AXIS_FONT, legend: { labelFontSize: 11, titleFontSize: 12, labelLimit: 260 }, view: { stroke: null } } } as const;

/** One bar of the ASR chart. */
export interface AsrBar {
  model: string;
  rater: string;
  asr: number;
  lower: number;
  upper: number;
  n: number;
  /** The row's coverage is below 80% (a pale bar with LOW above it, and in the tooltip). */
  coverage_low?: boolean;
  /** The row is `exposure_low` (src/stats/rates.ts; † above the bar, and in the tooltip). */
  exposure_low?: boolean;
}

/**
 * Grouped bars: one named rate (`rate`: asr_goal or asr_behaviour) per agent model (x) for each rater (judges, committee), with 95% interval whiskers.
 * A bar whose row is `coverage_low` is drawn pale with "LOW" above it, an `exposure_low` one with "†" (as the
 * heatmaps mark them), and a line over the chart says what the marks mean when any is drawn (new user 26: a VIGIL
 * bar read a plain 100% over 87 of 433 runs, its LOW only in the tooltip).
 * @param raters rater names in legend order; `colors` their colours.
 */
export function asrChart(rows: readonly AsrBar[], raters: readonly string[], colors: readonly string[], rate = "asr_behaviour"): Promise<string> {
  const enc = {
    x: { field: "model", type: "nominal", title: "agent model", axis: { labelAngle: -20, labelLimit: 360 } },
    xOffset: { field: "rater", sort: [...raters] },
  } as const;
  const marks = (r: AsrBar) => [r.coverage_low ? "LOW" : "", r.exposure_low ? "†" : ""].filter(Boolean).join(" ");
  const explained = [
    rows.some((r) => r.coverage_low) ? "LOW (pale bar): coverage below 80%, the rate is over a subset that may be biased" : "",
    rows.some((r) => r.exposure_low) ? `†: EXPOSURE LOW, below ${Math.round(100 * EXPOSURE_LOW_BELOW)}% of the labelled attacked runs met the injected text` : "",
  ].filter(Boolean);
  return renderVegaLite({
    ...BASE,
    ...(explained.length ? { title: { text: explained, fontSize: 11, fontWeight: "normal", anchor: "start" } } : {}),
    width: { step: 22 },
    height: 260,
    data: {
      values: rows.map((r) => ({ ...r, mark: marks(r), exposure: r.exposure_low ? `EXPOSURE LOW: the attack did not arrive (below ${Math.round(100 * EXPOSURE_LOW_BELOW)}% exposed)` : "ok" })),
    },
    layer: [
      {
        mark: { type: "bar" },
        encoding: {
          ...enc,
          y: { field: "asr", type: "quantitative", title: rate === "asr_goal" ? "asr_goal (full compliance / labelled attacked)" : "asr_behaviour (full or partial / labelled attacked)", axis: { format: ".0%" }, scale: { domain: [0, 1] } },
          color: { field: "rater", type: "nominal", title: "rater", sort: [...raters], scale: { domain: [...raters], range: [...colors] } },
          opacity: { condition: { test: "datum.coverage_low", value: 0.35 }, value: 1 },
          tooltip: [{ field: "rater" }, { field: "model" }, { field: "asr", title: rate, format: ".1%" }, { field: "n" }, { field: "coverage_low" }, { field: "exposure", title: "exposure" }],
        },
      },
      {
        mark: { type: "rule", color: "#333" },
        encoding: { ...enc, y: { field: "lower", type: "quantitative" }, y2: { field: "upper" } },
      },
      {
        transform: [{ filter: "datum.mark !== ''" }],
        mark: { type: "text", dy: -6, fontSize: 9, fontWeight: "bold", color: "#b00020", angle: 0 },
        encoding: { ...enc, y: { field: "upper", type: "quantitative" }, text: { field: "mark" } },
      },
    ],
  } as vl.TopLevelSpec);
}

/** Label counts per rater as 100% stacked horizontal bars in bucket order. */
export function labelDistributionChart(rows: ReadonlyArray<{ rater: string; label: string; count: number }>, raters: readonly string[]): Promise<string> {
  const order = [...BUCKETS];
  return renderVegaLite({
    ...BASE,
    width: 560,
    height: { step: 26 },
    data: { values: rows.map((r) => ({ ...r, order: order.indexOf(r.label as (typeof BUCKETS)[number]) })) },
    mark: "bar",
    encoding: {
      y: { field: "rater", type: "nominal", title: null, sort: [...raters] },
      x: { field: "count", type: "quantitative", stack: "normalize", title: "share of labels", axis: { format: ".0%" } },
      color: {
        field: "label",
        type: "nominal",
        title: "label",
        sort: order,
        scale: { domain: order, range: order.map((b) => BUCKET_COLORS[b]) },
      },
      order: { field: "order", type: "quantitative" },
      tooltip: [{ field: "rater" }, { field: "label" }, { field: "count" }],
    },
  } as vl.TopLevelSpec);
}

/** Tokens per judge, prompt and completion stacked. */
export function tokensChart(rows: ReadonlyArray<{ judge: string; kind: string; tokens: number }>, judges: readonly string[]): Promise<string> {
  return renderVegaLite({
    ...BASE,
    width: 480,
    height: { step: 24 },
    data: { values: rows.map((r) => ({ ...r })) },
    mark: "bar",
    encoding: {
      y: { field: "judge", type: "nominal", title: null, sort: [...judges] },
      x: { field: "tokens", type: "quantitative", title: "tokens", axis: { format: "~s" } },
      color: { field: "kind", type: "nominal", title: null, scale: { domain: ["prompt", "completion"], range: ["#9ecae9", "#3182bd"] } },
      tooltip: [{ field: "judge" }, { field: "kind" }, { field: "tokens", format: "," }],
    },
  } as vl.TopLevelSpec);
}

/**
 * A confusion-matrix heatmap: rows = the rater (judge or committee), columns = the reference (human consensus
 * or benchmark verdict), cell colour = share of the row, cell text = count.
 */
export function confusionHeatmap(opts: { table: number[][]; rowLabels: readonly string[]; colLabels: readonly string[]; rowTitle: string; colTitle: string }): Promise<string> {
  const values: Array<{ r: string; c: string; count: number; share: number }> = [];
  opts.table.forEach((row, i) => {
    const tot = row.reduce((s, x) => s + x, 0);
    row.forEach((x, j) => values.push({ r: String(opts.rowLabels[i]), c: String(opts.colLabels[j]), count: x, share: tot > 0 ? x / tot : 0 }));
  });
  const cell = opts.colLabels.length > 3 ? 46 : 64;
  return renderVegaLite({
    ...BASE,
    width: { step: cell },
    height: { step: Math.round(cell * 0.7) },
    data: { values },
    encoding: {
      x: { field: "c", type: "nominal", title: opts.colTitle, sort: [...opts.colLabels].map(String), axis: { labelAngle: -35, orient: "top", labelLimit: 300 } },
      y: { field: "r", type: "nominal", title: opts.rowTitle, sort: [...opts.rowLabels].map(String), axis: { labelLimit: 300 } },
    },
    layer: [
      {
        mark: { type: "rect", stroke: "#fff" },
        encoding: {
          color: { field: "share", type: "quantitative", title: "row share", scale: { scheme: "blues", domain: [0, 1] }, legend: null },
          tooltip: [{ field: "r", title: opts.rowTitle }, { field: "c", title: opts.colTitle }, { field: "count" }, { field: "share", format: ".0%" }],
        },
      },
      {
        mark: { type: "text", fontSize: 11 },
        encoding: {
          text: { field: "count", type: "quantitative" },
          color: { condition: { test: "datum.share > 0.55", value: "white" }, value: "#222" },
        },
      },
    ],
  } as vl.TopLevelSpec);
}

/** One row of the kappa forest plot. */
export interface ForestRow {
  /** e.g. "judge-a vs human consensus". */
  label: string;
  group: string;
  /** how many categories the kappa is over (6: the six buckets; 2: yes/no): kappas over different counts are not comparable */
  categories: number;
  kappa: number;
  lower: number | null;
  upper: number | null;
  n: number;
}

/** Forest plot: each comparison's kappa (point) with its 95% interval (line), with reference lines at 0 and 1. */
export function forestPlot(rows: readonly ForestRow[]): Promise<string> {
  const withCi = rows.map((r) => ({ ...r, lo: r.lower ?? r.kappa, hi: r.upper ?? r.kappa }));
  const order = rows.map((r) => r.label);
  const y = { field: "label", type: "nominal", title: null, sort: order, axis: { labelLimit: 420 } } as const;
  return renderVegaLite({
    ...BASE,
    width: 420,
    height: { step: 24 },
    data: { values: withCi },
    layer: [
      {
        mark: { type: "rule", strokeWidth: 2 },
        encoding: {
          y,
          x: { field: "lo", type: "quantitative", title: "Cohen's kappa (95% CI)", scale: { domain: [-0.2, 1] } },
          x2: { field: "hi" },
          color: { field: "group", type: "nominal", title: "compared with" },
        },
      },
      {
        mark: { type: "point", filled: true, size: 70 },
        encoding: {
          y,
          x: { field: "kappa", type: "quantitative" },
          color: { field: "group", type: "nominal" },
          tooltip: [{ field: "label" }, { field: "kappa", format: ".3f" }, { field: "lo", title: "lower", format: ".3f" }, { field: "hi", title: "upper", format: ".3f" }, { field: "n" }],
        },
      },
      { data: { values: [{ x: 0 }, { x: 1 }] }, mark: { type: "rule", strokeDash: [4, 4], color: "#999" }, encoding: { x: { field: "x", type: "quantitative" } } },
    ],
  } as vl.TopLevelSpec);
}

/**
 * Heatmap of one named rate (`rate`: asr_goal or asr_behaviour; `asr` = its value) per agent model (rows) and
 * condition (columns); cell text = the rate, with "LOW" appended when the cell's coverage is below 80% and "†" when it
 * is `exposure_low` (the attack did not arrive: the section's warning says so). `title`
 * names the column field (`condition`, `attack`, `surface`) on the axis and in the tooltip.
 */
export function conditionHeatmap(
  cells: ReadonlyArray<{ model: string; condition: string; asr: number; n: number; coverage_low?: boolean; exposure_low?: boolean; over?: string }>,
  title: string,
  rate = "asr_behaviour",
): Promise<string> {
  return renderVegaLite({
    ...BASE,
    width: { step: 58 },
    height: { step: 30 },
    data: {
      values: cells.map((c) => ({
        ...c,
        coverage: c.coverage_low ? "LOW (below 80%)" : "ok",
        over: c.over ?? "",
        exposure: c.exposure_low ? `LOW (below ${Math.round(100 * EXPOSURE_LOW_BELOW)}%: the attack did not arrive)` : "ok",
        text: `${Math.round(100 * c.asr)}%${c.coverage_low ? " LOW" : ""}${c.exposure_low ? " †" : ""}`,
      })),
    },
    encoding: {
      x: { field: "condition", type: "nominal", title, axis: { labelAngle: -35, orient: "top", labelLimit: 480 } },
      y: { field: "model", type: "nominal", title: "agent model", axis: { labelLimit: 400 } },
    },
    layer: [
      {
        mark: { type: "rect", stroke: "#fff" },
        encoding: {
          color: { field: "asr", type: "quantitative", title: rate, scale: { scheme: "reds", domain: [0, 1] }, legend: { format: ".0%" } },
          // the column's field by its name (attack, surface: not "condition"), and what n counts (review)
          tooltip: [{ field: "model" }, { field: "condition", title }, { field: "asr", title: rate, format: ".1%" }, { field: "n", title: "n (labelled attacked runs)" }, { field: "over", title: "over" }, { field: "coverage" }],
        },
      },
      {
        mark: { type: "text", fontSize: 10 },
        encoding: { text: { field: "text" }, color: { condition: { test: "datum.asr > 0.55", value: "white" }, value: "#222" } },
      },
    ],
  } as vl.TopLevelSpec);
}
