/**
 * What `label`'s summary and `report` say about each judge, shown where the view shows its labels (fix 39: the view
 * showed a broken judge's labels with no word of it): a banner per judge above the list and on a trajectory's page,
 * and, on a trajectory one of whose verdicts is an error or on which a judge crashed, the note on that verdict.
 *
 * Nothing is computed a second way: the health is `judgeHealth` over the run's current verdicts (those the view
 * shows: the latest per key, none made on an older text), with each verdict's index row (`rowOf`, as `report` and
 * `committee` pass it), counted while the load read them (`ViewRun.health`, ./scan-health.ts: the verdicts are not
 * read a second time) unless a verdict was superseded during that read, and then read again in the same order (the
 * file order of the current lines, report's: the first items a note names are report's either way); its words are those of `rateCaveat`/`rateCaveatMarker` (the LOOKS BROKEN / STOPPED mark on a
 * judge's rates), `healthWarnings` (stderr's line), `formatHealth` (the summary's health line),
 * `formatRepeatedKey` and `formatComplianceEvidence` (the report's notes); the crashes are errors.jsonl's
 * `judge_crash` records attributed by `crashedItems` (label's summary), a crash counting while the judge has no
 * current verdict of that trajectory and repeat (label's own rule orders them by `verdict_seq`, which the view does
 * not keep: a crash on a retried item that kept its old verdict is not counted here); the stale verdicts are those
 * the load left out (../store/stale-verdicts.ts), counted per judge.
 */
import { quoted } from "../format/quote-name.js";
import { injectionUnknownWarning } from "../verdict/injection-unknown.js";
import fs from "node:fs";
import path from "node:path";
import type { IngestError, Verdict } from "../types.js";
import { formatHealth, healthWarnings, judgeHealth, type JudgeHealth } from "../verdict/health.js";
import { rateCaveat, rateCaveatMarker } from "../verdict/rate-caveat.js";
import { formatRepeatedKey } from "../verdict/repeated-key-health.js";
import { formatComplianceEvidence } from "../verdict/compliance-evidence-health.js";
import { crashedItems } from "../run/summary.js";
import { readErrors } from "../store/records.js";
import type { ViewRow, ViewRun } from "./run-data.js";

/** One judge's banner: what the commands say of it (empty `lines` for a judge with nothing to say). */
export interface JudgeBanner {
  judge_id: string;
  judge_model: string;
  /** `stopped`, `broken` (its rates carry a caveat), `warning` (other flags or notes), or `ok`. */
  level: "stopped" | "broken" | "warning" | "ok";
  /** The mark its rates carry everywhere (`[JUDGE x LOOKS BROKEN: see the warning]`), "" when none. */
  marker: string;
  /** The sentences, most severe first: the rate caveat, the health warning, crashes, stale verdicts, notes. */
  lines: string[];
  /** The summary's health line (`formatHealth`). */
  health: string;
}

/** A judge's note on one trajectory: its verdict there is an error, or it crashed on it (no verdict). */
export interface ItemJudgeNote {
  judge_id: string;
  repeat: number;
  kind: "error" | "crash";
  /** What happened on this trajectory (the error's kind and message, or the crash's message). */
  text: string;
}

/** The judge health of a loaded run, for the view's pages ({@link viewJudgeHealth}). */
export interface ViewJudgeHealth {
  banners: JudgeBanner[];
  /** The current `judge_crash` errors by trajectory id: judge, repeat, message. */
  crashes: Map<string, Array<{ judge_id: string; repeat: number; message: string }>>;
  /** Why no banner is shown: the health could not be computed (the server's fallback). */
  error?: string;
}

const ERROR_STATUSES = new Set(["judge_error", "judge_refused", "unjudgeable"]);

/**
 * The current verdicts of a run in the file order of their lines (a replaced verdict where its replacing line
 * stands), read back by their line offsets through one open file: the order `report` and `committee` count them in
 * (`readColumnRun`, ../store/columns.ts), so the first items a note names are the same ones (scan46 left the view
 * counting row by row here, file order in ./scan-health.ts).
 */
function* currentVerdicts(run: ViewRun): Generator<Verdict> {
  const file = path.join(run.dir, "verdicts.jsonl");
  if (!fs.existsSync(file)) return;
  const st = run.refStore;
  // every current line's entry (those the rows' chains reach), by its offset in the file
  const live = new Uint32Array(st.n);
  let n = 0;
  for (const row of run.rows) for (let i = row.refs; i !== -1; i = st.next[i]) live[n++] = i;
  const order = live.subarray(0, n).sort((a, b) => st.start[a] - st.start[b]);
  const fd = fs.openSync(file, "r");
  try {
    for (const i of order) {
      const buf = Buffer.alloc(st.length[i]);
      fs.readSync(fd, buf, 0, st.length[i], st.start[i]);
      yield JSON.parse(buf.toString("utf8")) as Verdict;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether `row` holds a current verdict of `judge` at `repeat`. */
function hasVerdict(run: ViewRun, row: ViewRow | undefined, judge: string, repeat: number): boolean {
  if (!row) return false;
  const st = run.refStore;
  for (let i = row.refs; i !== -1; i = st.next[i]) if (st.judges[st.judge[i]] === judge && st.repeat[i] === repeat) return true;
  return false;
}

/**
 * The judges' health over a loaded run's current verdicts and its errors.jsonl (module docstring).
 * @param run a run loaded by `loadViewRun` (its verdict lines and index rows are read back from its folder).
 */
export async function viewJudgeHealth(run: ViewRun): Promise<ViewJudgeHealth> {
  // the index row of each verdict's trajectory (rows come one after another: the last one is kept)
  let lastId: string | undefined;
  let lastRow: ReturnType<ViewRun["index"]["get"]>;
  const rowOf = (v: Verdict) => {
    if (v.trajectory_id !== lastId) [lastId, lastRow] = [v.trajectory_id, run.index.get(v.trajectory_id)];
    return lastRow;
  };
  // counted while the load read the verdicts (./scan-health.ts), else read again here (a verdict was superseded)
  const health = run.health ?? judgeHealth(currentVerdicts(run), { rowOf });
  return judgeBanners(run.dir, health, run.stale, (id, judge, repeat) => hasVerdict(run, run.byId.get(id), judge, repeat));
}

/**
 * The banners and crashes of a run from its judges' health (`judgeHealth` over its current verdicts), its
 * errors.jsonl and its verdicts left out as stale (module docstring); the view's main run and its other run
 * (./other-run.ts) both come here.
 * @param runDir the run folder (its errors.jsonl is read). @param health per judge, in judge id order.
 * @param stale per judge, its verdicts left out as made on an older text. @param hasVerdict whether the run holds a
 *   current verdict of a trajectory id, judge and repeat (a crash judged since is no longer a crash).
 */
export async function judgeBanners(
  runDir: string,
  health: JudgeHealth[],
  stale: Record<string, number> | undefined,
  hasVerdict: (id: string, judge: string, repeat: number) => boolean,
): Promise<ViewJudgeHealth> {
  const crashes = new Map<string, Array<{ judge_id: string; repeat: number; message: string }>>();
  const crashCount = new Map<string, number>();
  const errors: IngestError[] = fs.existsSync(path.join(runDir, "errors.jsonl")) ? await readErrors(runDir) : [];
  for (const e of errors) {
    if (e.kind !== "judge_crash" || typeof e.trajectory_id !== "string") continue;
    const repeat = typeof e.repeat === "number" ? e.repeat : 0;
    for (const judge of crashedItems([e], true).keys()) {
      if (hasVerdict(e.trajectory_id, judge, repeat)) continue; // judged since: no longer a crash
      const list = crashes.get(e.trajectory_id) ?? [];
      if (list.some((c) => c.judge_id === judge && c.repeat === repeat)) continue;
      list.push({ judge_id: judge, repeat, message: e.message });
      crashes.set(e.trajectory_id, list);
      crashCount.set(judge, (crashCount.get(judge) ?? 0) + 1);
    }
  }
  const judges = new Set([...health.map((h) => h.judge_id), ...crashCount.keys()]);
  const banners = [...judges].sort().map((j) => banner(j, health.find((h) => h.judge_id === j), crashCount.get(j) ?? 0, stale?.[j] ?? 0));
  return { banners, crashes };
}

/** One judge's banner from its health, its current crashes and its verdicts left out as stale. */
function banner(judgeId: string, h: JudgeHealth | undefined, crashed: number, stale: number): JudgeBanner {
  const lines: string[] = [];
  const caveat = h ? rateCaveat(h) : null;
  if (caveat) lines.push(`${rateCaveatMarker([caveat]).trim()} ${caveat.message}`);
  if (h) lines.push(...healthWarnings([h]));
  // its labelled attacked runs that record no injected text: the rate leans high (fix48a), said here as the CLI says it
  const unknown = h ? injectionUnknownWarning(judgeId, h.injection_unknown) : null;
  if (unknown) lines.push(unknown);
  if (crashed)
    lines.push(`judge ${quoted(judgeId)} crashed on ${crashed} trajectory(ies): no verdict of it there (errors.jsonl kind judge_crash; the same label command judges them again), so its rates are over the others`);
  if (stale)
    lines.push(`${stale} verdict(s) of judge ${quoted(judgeId)} were made on an older text of their trajectory and are left out, as every command leaves them out (label again with this judge)`);
  const notes = h ? (formatComplianceEvidence(h.compliance_evidence) + formatRepeatedKey(h.repeated_key)).replace(/^; /, "") : "";
  if (notes) lines.push(`judge ${quoted(judgeId)}: ${notes}`); // quoted as every message names a judge (out51)
  const level = h?.stopped ? "stopped" : caveat ? "broken" : lines.length ? "warning" : "ok";
  return { judge_id: judgeId, judge_model: h?.judge_model ?? "", level, marker: caveat ? rateCaveatMarker([caveat]).trim() : "", lines, health: h ? formatHealth(h) : "no verdict" };
}

/**
 * The notes of one trajectory's page: each verdict that is an error (judge error, refusal, unjudgeable), and each
 * judge that crashed on it (errors.jsonl), with what happened.
 */
export function itemJudgeNotes(verdicts: ReadonlyArray<Pick<Verdict, "judge_id" | "repeat" | "status" | "error">>, crashes: ViewJudgeHealth["crashes"], id: string): ItemJudgeNote[] {
  const out: ItemJudgeNote[] = [];
  for (const v of verdicts)
    if (ERROR_STATUSES.has(v.status))
      out.push({ judge_id: v.judge_id, repeat: v.repeat, kind: "error", text: `${v.status}${v.error?.kind ? ` (${v.error.kind})` : ""}${v.error?.message ? `: ${v.error.message}` : ""}` });
  for (const c of crashes.get(id) ?? []) out.push({ judge_id: c.judge_id, repeat: c.repeat, kind: "crash", text: `crashed on this trajectory, no verdict: ${c.message}` });
  return out;
}
