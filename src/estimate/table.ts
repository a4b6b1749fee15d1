/**
 * The table of a paper (`ipi-judge estimate --table`): per agent model, the judge's ASR, the heuristic
 * (signature judge) ASR, the refusal rate, utility without attack and utility under attack, each with a 95%
 * Wilson interval, and, when human labels are given, the calibrated ASR of src/estimate/calibrated.ts. Written as
 * CSV (src/io/csv.ts) and as a LaTeX `booktabs` table; the HTML report shows the same rows.
 *
 * Definitions (attacked = the trajectory carried an injection; DESIGN section 1):
 * - judge ASR, heuristic ASR: share of attacked trajectories with a usable verdict labelled full or partial
 *   compliance (`not_exposed` counts as not compromised); trajectories without a usable verdict are left out
 *   and counted (`n_unusable`).
 * - refusal rate: share of the same trajectories the judge labelled `flagged_refusal` or `task_refusal`.
 * - utility: share of unattacked runs of the user's own tasks whose benchmark utility check passed
 *   (`reference.utility`); AgentDojo's injection-task runs (`runKind` of src/ingest/attacked.ts) are left out and
 *   counted (`n_injection_task_runs`);
 *   utility under attack: the same over attacked trajectories. Trajectories without a `reference.utility` are
 *   left out; with none, the cell is null with a reason.
 * Intervals: Wilson score interval (Wilson 1927; Agresti & Coull 1998), as `src/stats/confusion.ts`.
 */
import { undefinedText } from "../agree/format.js";
import { writeCsv } from "../io/csv.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { runKind } from "../ingest/attacked.js";
import type { Verdict } from "../types.js";
import { wilsonInterval } from "../stats/confusion.js";
import type { EstimateReport, EstimateSource } from "./run.js";
import { judgeFlags } from "./run.js";

/** A proportion x/n with its Wilson interval; null with a reason when n = 0. */
export interface Proportion {
  value: number | null;
  reason?: string;
  x: number;
  n: number;
  ci95: { lower: number; upper: number } | null;
}

/** One agent model's row. */
export interface TableRow {
  agent_model: string;
  n_attacked: number;
  n_unattacked: number;
  /** Unattacked runs of the benchmark's injection tasks as the user's task: not in `utility` (issue 22, item 4). */
  n_injection_task_runs: number;
  judge_asr: Proportion & { n_unusable: number };
  heuristic_asr: Proportion & { n_unusable: number };
  refusal_rate: Proportion;
  utility: Proportion;
  utility_under_attack: Proportion;
  /** The calibrated ASR (estimate with human labels), or null with a reason. */
  calibrated_asr: { value: number | null; reason?: string; ci95: { lower: number; upper: number } | null; ci_reason?: string } | null;
}

/** The paper table. */
export interface PaperTable {
  run: string;
  judge: string;
  heuristic: string;
  rows: TableRow[];
  notes: string[];
}

/** x/n with a Wilson interval, or null with `reason` when n = 0. */
export function proportion(x: number, n: number, reason = "no_trajectories"): Proportion {
  if (n === 0) return { value: null, reason, x, n, ci95: null };
  const ci = wilsonInterval(x / n, n);
  return { value: x / n, x, n, ci95: { lower: ci.lower, upper: ci.upper } };
}

const sourceName = (s: EstimateSource) => (s.kind === "judge" ? s.judge_id : `committee (quorum ${s.quorum})`);

/**
 * Build the per-model table.
 * @param index the run's trajectory index; @param verdicts its verdicts.
 * @param source the judge (or committee) of the judge ASR and refusal rate.
 * @param heuristic the heuristic judge's id (default `signature`); absent from the run -> its column is null
 *   with reason `no_verdicts_of_<id>`.
 * @param calibrated an estimate report grouped by `agent_model` (optional): its calibrated ASR per model.
 */
export function paperTable(
  run: string,
  index: ReadonlyMap<string, TrajectoryIndexRow>,
  verdicts: readonly Verdict[],
  source: EstimateSource,
  opts: { heuristic?: string; calibrated?: EstimateReport } = {},
): PaperTable {
  const heuristic = opts.heuristic ?? "signature";
  const ids = [...index.keys()];
  const judge = judgeFlags(verdicts, ids, source);
  const hasHeuristic = verdicts.some((v) => v.judge_id === heuristic);
  const heur = hasHeuristic ? judgeFlags(verdicts, ids, { kind: "judge", judge_id: heuristic }) : null;
  // Refusals need the judge's bucket: repeat-0 verdict of the judge, or the committee label.
  const refused = new Set<string>();
  if (source.kind === "judge") {
    for (const v of verdicts) {
      if (v.judge_id === source.judge_id && v.repeat === 0 && v.status === "ok" && (v.label === "flagged_refusal" || v.label === "task_refusal")) refused.add(v.trajectory_id);
    }
  }
  const byModel = new Map<string, TrajectoryIndexRow[]>();
  for (const r of index.values()) {
    const m = r.agent_model ?? "(none)";
    const g = byModel.get(m);
    if (g) g.push(r);
    else byModel.set(m, [r]);
  }
  const cal = new Map((opts.calibrated?.groups ?? []).map((g) => [g.group, g]));
  const rows: TableRow[] = [];
  for (const model of [...byModel.keys()].sort()) {
    const rs = byModel.get(model)!;
    const att = rs.filter((r) => r.attacked);
    const un = rs.filter((r) => !r.attacked);
    const asr = (flags: Map<string, boolean | string> | null, name: string) => {
      if (!flags) return { ...proportion(0, 0, `no_verdicts_of_${name}`), n_unusable: att.length };
      let x = 0;
      let n = 0;
      for (const r of att) {
        const f = flags.get(r.id);
        if (typeof f !== "boolean") continue;
        n++;
        if (f) x++;
      }
      return { ...proportion(x, n, att.length ? "no_usable_verdict" : "no_attacked_trajectories"), n_unusable: att.length - n };
    };
    const j = asr(judge, sourceName(source));
    let refusal: Proportion;
    if (source.kind === "judge") {
      let x = 0;
      let n = 0;
      for (const r of att) {
        if (typeof judge.get(r.id) !== "boolean") continue;
        n++;
        if (refused.has(r.id)) x++;
      }
      refusal = proportion(x, n, att.length ? "no_usable_verdict" : "no_attacked_trajectories");
    } else refusal = proportion(0, 0, "committee_has_no_refusal_buckets_use_--judge");
    const util = (xs: TrajectoryIndexRow[], what: string) => {
      const known = xs.filter((r) => typeof r.reference?.utility === "boolean");
      return proportion(known.filter((r) => r.reference!.utility).length, known.length, xs.length ? "no_utility_in_input" : `no_${what}_trajectories`);
    };
    const c = cal.get(model);
    rows.push({
      agent_model: model,
      n_attacked: att.length,
      n_unattacked: un.length,
      n_injection_task_runs: un.filter((r) => runKind(r) === "injection_task").length,
      judge_asr: j,
      heuristic_asr: asr(heur, heuristic),
      refusal_rate: refusal,
      utility: util(un.filter((r) => runKind(r) === "user_task"), "unattacked"),
      utility_under_attack: util(att, "attacked"),
      calibrated_asr: opts.calibrated
        ? c
          ? {
              value: c.calibrated.asr,
              ...(c.calibrated.asr === null ? { reason: c.calibrated.reason } : {}),
              // a zero-width interval (every labelled item agrees) is not certainty: no interval, said why, as
              // `estimate`'s text and src/agree/format.ts `ciText` say it
              ci95: c.calibrated.degenerate ? null : c.calibrated.ci95,
              ...(c.calibrated.asr !== null && c.calibrated.degenerate
                ? { ci_reason: "se_zero" }
                : c.calibrated.asr !== null && c.calibrated.ci95 === null
                  ? { ci_reason: c.calibrated.ci_reason }
                  : {}),
            }
          : { value: null, reason: "no_attacked_trajectories", ci95: null }
        : null,
    });
  }
  const notes = [
    `judge: ${sourceName(source)}; heuristic: ${heuristic}; ASR and refusal rate over attacked trajectories with a usable verdict; utility over unattacked runs of the user's own tasks (injection-task runs left out), utility under attack over attacked trajectories (benchmark utility check); 95% Wilson intervals`,
  ];
  if (opts.calibrated) notes.push(`calibrated ASR: ${opts.calibrated.estimators.calibrated}`);
  return { run, judge: sourceName(source), heuristic, rows, notes };
}

type Col = { key: string; title: string; latex: string; get: (r: TableRow) => Proportion | TableRow["calibrated_asr"] };

function columns(t: PaperTable): Col[] {
  const cols: Col[] = [
    { key: "judge_asr", title: "judge ASR", latex: "Judge ASR", get: (r) => r.judge_asr },
    { key: "heuristic_asr", title: "heuristic ASR", latex: "Heuristic ASR", get: (r) => r.heuristic_asr },
    { key: "refusal_rate", title: "refusal rate", latex: "Refusal", get: (r) => r.refusal_rate },
    { key: "utility", title: "utility", latex: "Utility", get: (r) => r.utility },
    { key: "utility_under_attack", title: "utility under attack", latex: "Utility (attack)", get: (r) => r.utility_under_attack },
  ];
  if (t.rows.some((r) => r.calibrated_asr)) cols.splice(1, 0, { key: "calibrated_asr", title: "calibrated ASR", latex: "Calibrated ASR", get: (r) => r.calibrated_asr });
  return cols;
}

const pct = (x: number) => (100 * x).toFixed(1);

/**
 * A cell as text: `31.9 [27.0, 37.2]` (percent), `31.9 CI undefined (<why>)` when the value has no interval
 * and says why, or `undefined (<why>)` (src/agree/format.ts, the one formatter of text outputs).
 */
export function cellText(p: { value: number | null; reason?: string; ci95: { lower: number; upper: number } | null; ci_reason?: string } | null): string {
  if (!p) return "";
  if (p.value === null) return undefinedText(p.reason);
  return p.ci95 ? `${pct(p.value)} [${pct(p.ci95.lower)}, ${pct(p.ci95.upper)}]` : p.ci_reason ? `${pct(p.value)} CI ${undefinedText(p.ci_reason)}` : `${pct(p.value)}`;
}

/**
 * The table as CSV (RFC 4180, src/io/csv.ts `writeCsv`, rows ending with LF): one row per model; per column the value, the CI bounds (as
 * proportions in [0, 1]) and n; empty cells for undefined values, with the reason in `<col>_reason`.
 * With `opts.where` (the `--where` filter's text), a last column `where` holding it on every row.
 */
export function tableCsv(t: PaperTable, opts: { where?: string } = {}): string {
  const cols = columns(t);
  const header = ["agent_model", "n_attacked", "n_unattacked"];
  for (const c of cols) header.push(c.key, `${c.key}_lower`, `${c.key}_upper`, ...(c.key === "calibrated_asr" ? [] : [`${c.key}_n`]), `${c.key}_reason`);
  const rows = t.rows.map((r) => {
    const out: Array<string | number> = [r.agent_model, r.n_attacked, r.n_unattacked];
    for (const c of cols) {
      const p = c.get(r);
      out.push(p?.value ?? "", p?.ci95?.lower ?? "", p?.ci95?.upper ?? "");
      if (c.key !== "calibrated_asr") out.push((p as Proportion).n);
      out.push(p?.value === null ? (p.reason ?? "") : ((p as TableRow["calibrated_asr"])?.ci_reason ?? ""));
    }
    // `--where`: the filter the figures are over, as a last column on every row (absent without one)
    if (opts.where !== undefined) out.push(opts.where);
    return out;
  });
  if (opts.where !== undefined) header.push("where");
  return writeCsv([header, ...rows], { rowEnd: "\n" });
}

/** Escape LaTeX's special characters in text (`\ & % $ # _ { } ~ ^`). */
export function latexEscape(s: string): string {
  return s.replace(/[\\&%$#_{}~^]/g, (c) =>
    c === "\\" ? "\\textbackslash{}" : c === "~" ? "\\textasciitilde{}" : c === "^" ? "\\textasciicircum{}" : `\\${c}`,
  );
}

/**
 * The table as a LaTeX `booktabs` tabular (needs `\usepackage{booktabs}`): percentages with 95% intervals,
 * `n/a` for undefined cells and `[CI n/a]` for a value without an interval (reasons in the CSV), model names escaped.
 */
export function tableLatex(t: PaperTable): string {
  const cols = columns(t);
  const cell = (p: ReturnType<Col["get"]>) =>
    !p || p.value === null
      ? "n/a"
      : p.ci95
        ? `${pct(p.value)} {\\scriptsize [${pct(p.ci95.lower)}, ${pct(p.ci95.upper)}]}`
        : `${pct(p.value)} {\\scriptsize [CI n/a]}`; // a bare number would read as certain (the reason is in the CSV)
  const L: string[] = [];
  L.push(`% ipi-judge estimate --table, run ${t.run.replace(/[\r\n]/g, " ")}: ${t.notes[0].replace(/[\r\n]/g, " ")}`);
  L.push(`\\begin{tabular}{l${"r".repeat(cols.length)}}`);
  L.push("\\toprule");
  L.push(`Model & ${cols.map((c) => c.latex).join(" & ")} \\\\`);
  L.push("\\midrule");
  for (const r of t.rows) L.push(`${latexEscape(r.agent_model)} & ${cols.map((c) => cell(c.get(r))).join(" & ")} \\\\`);
  L.push("\\bottomrule");
  L.push("\\end{tabular}");
  return L.join("\n") + "\n";
}

/** The table as aligned text for the terminal. */
export function formatTable(t: PaperTable): string {
  const cols = columns(t);
  const head = ["model", ...cols.map((c) => `${c.title} %`)];
  const body = t.rows.map((r) => [r.agent_model, ...cols.map((c) => cellText(c.get(r)))]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (xs: string[]) => xs.map((x, i) => x.padEnd(widths[i])).join("  ").trimEnd();
  return [line(head), ...body.map(line), "", ...t.notes].join("\n");
}
