/**
 * Like for like for the utility columns (review 14): `utility` (without attack) and `utility under attack` sit beside
 * the attack-success rates in `estimate --table`, `compare` and `report`, but each is over its own runs: the
 * unattacked runs of the user's own tasks, and the attacked runs, each with a benchmark utility verdict. A model's
 * utility over workspace only beside another's over four suites, or a utility whose runs include a suite its ASR
 * never ran, is as unlike as the rates: the same check (`likeForLikeWarnings`, src/stats/like-for-like.ts) runs on
 * each column's own runs, so its suite, attack and task sets are the ones its figures are over.
 */
import { ATTACK_MIX_MARK, LikeForLikeGroups, MIX_KINDS, MODEL_MIX_MARK, UNATTACKED_MIX_MARKS, UNDER_ATTACK_MIX_MARKS, type LikeForLikeItem } from "./like-for-like.js";

/**
 * A like-for-like warning reworded for the utility-without-attack column (session 50): its runs are unattacked runs of
 * the user's own tasks, whose cells are (suite, user task) (no injection task, no attack), and the figure is a utility,
 * not an attack-success rate. The shared warning's words ("(suite, user task, injection task, attack) cells",
 * "per-model rates") are the rates' and misread here.
 */
export function unattackedWording(w: string): string {
  return w
    .split(MIX_KINDS.cells)
    .join("different (suite, user task) cells")
    .split("(suite, user task, injection task, attack) cells")
    .join("(suite, user task) cells")
    .split(MODEL_MIX_MARK)
    .join(UNATTACKED_MIX_MARKS.model)
    .split(ATTACK_MIX_MARK)
    .join(UNATTACKED_MIX_MARKS.attack)
    .split("their rates measure different tasks")
    .join("their utility figures measure different tasks");
}

/**
 * A like-for-like warning reworded for the utility-under-attack column (fix50b): its runs are the rates' (the same
 * cells), but the figure is a utility, so "per-model rates" and "their rates" are the column's utility figures.
 */
export function underAttackWording(w: string): string {
  return w
    .split(MODEL_MIX_MARK)
    .join(UNDER_ATTACK_MIX_MARKS.model)
    .split(ATTACK_MIX_MARK)
    .join(UNDER_ATTACK_MIX_MARKS.attack)
    .split("their rates measure different tasks")
    .join("their utility figures measure different tasks");
}

/**
 * One run as {@link utilityLikeForLikeWarnings} reads it: its like-for-like fields (`condition`: the value of the
 * field the figures are split by), its kind (`runKind` of src/ingest/attacked.ts) and whether it has a boolean
 * benchmark utility verdict.
 */
export interface UtilityRunItem extends LikeForLikeItem {
  kind: "attacked" | "user_task" | "injection_task";
  has_utility: boolean;
  /** the number of runs this item stands for (runs with the same fields, read once; default 1) */
  weight?: number;
}

/** Words every utility like-for-like warning starts with, per column. */
export const UTILITY_COLUMNS = { without: "utility without attack", under: "utility under attack" } as const;

/**
 * The like-for-like warnings of the utility columns, each prefixed with its column (`utility without attack: ...`,
 * `utility under attack: ...`). Runs counted: those with a utility verdict (`has_utility`) and a model; without
 * attack the runs of the user's own tasks (`kind` user_task; injection-task runs are not in utility), their cells
 * (suite, user task) with the attack and injection task `(none)`; under attack the attacked runs.
 * @param rows the trajectories the utility figures are over (after `--where` and any like-for-like restriction).
 * @param shown warnings already shown for the rates: a utility warning with the same words is not repeated.
 * @returns the warnings, without-attack first; [] when both columns were measured like for like.
 */
export function utilityLikeForLikeWarnings(rows: Iterable<UtilityRunItem>, shown: readonly string[] = []): string[] {
  // each column's runs with a verdict (`without`, `under`) and every run of it (`ranWithout`, `ranUnder`), collected
  // as the rows come: no list of a million items is held (issue 26, `LikeForLikeGroups`)
  const without = new LikeForLikeGroups();
  const under = new LikeForLikeGroups();
  // per (model, condition): the suites of its attacked runs (the rates) and of its utility-without-attack runs
  const suites = new Map<string, { rates: Set<string>; utility: Map<string, number> }>();
  const slot = (m: string, c: string | undefined) => {
    const k = `${m}${c === undefined ? "" : ` | ${c}`}`;
    return suites.get(k) ?? suites.set(k, { rates: new Set(), utility: new Map() }).get(k)!;
  };
  // every run of each column, verdict or not: a difference found only among the runs with a verdict is not what
  // was run but the verdicts the benchmark lacks (newuser16: "ran 359 cells" of a model that ran 360, one without)
  const ranWithout = new LikeForLikeGroups();
  const ranUnder = new LikeForLikeGroups();
  const noVerdict = { without: new Map<string, number>(), under: new Map<string, number>() };
  for (const r of rows) {
    if (r.model === undefined) continue;
    const { kind, condition } = r;
    if (kind === "attacked") slot(r.model, condition).rates.add(r.suite ?? "(none)");
    if (kind === "injection_task") continue;
    const every: LikeForLikeItem = {
      model: r.model,
      condition,
      attack: r.attack,
      suite: r.suite,
      user_task_id: r.user_task_id,
      injection_task_id: kind === "attacked" ? r.injection_task_id : (r.injection_task_id ?? "(none)"),
    };
    (kind === "attacked" ? ranUnder : ranWithout).add(every);
    if (!r.has_utility) {
      const m = kind === "attacked" ? noVerdict.under : noVerdict.without;
      const k = `${r.model}${condition === undefined ? "" : ` | ${condition}`}`;
      m.set(k, (m.get(k) ?? 0) + (r.weight ?? 1));
    }
    if (!r.has_utility) continue;
    if (kind === "user_task") {
      const u = slot(r.model, condition).utility;
      u.set(r.suite ?? "(none)", (u.get(r.suite ?? "(none)") ?? 0) + (r.weight ?? 1));
    }
    (kind === "attacked" ? under : without).add(every); // the same cell, read only: counted in both
  }
  const out: string[] = [];
  const cols = [
    [UTILITY_COLUMNS.without, without, ranWithout, noVerdict.without],
    [UTILITY_COLUMNS.under, under, ranUnder, noVerdict.under],
  ] as const;
  for (const [col, items, all, missing] of cols) {
    const found = items.warnings();
    if (found.length === 0) continue;
    const ranDiffer = all.warnings();
    if (ranDiffer.length > 0 || missing.size === 0) {
      for (const w of found) if (!shown.includes(w)) out.push(`${col}: ${col === UTILITY_COLUMNS.without ? unattackedWording(w) : underAttackWording(w)}`);
      continue;
    }
    // what was run is like for like: the difference is the runs the benchmark gave no utility verdict
    const lacking = [...missing].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${k} ${n}`).join(", ");
    const hint = `the runs were like for like, but some have no benchmark utility verdict (${lacking}), so this column leaves them out; no filter restores them`;
    for (const w of items.warnings({ ran: "have a benchmark utility verdict on", hint })) out.push(`${col}: ${col === UTILITY_COLUMNS.without ? unattackedWording(w) : underAttackWording(w)}`);
  }
  // one row's utility beside its own rates: read together (the trade-off) only when over the same suites
  for (const [k, s] of [...suites].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (s.rates.size === 0 || s.utility.size === 0) continue;
    const extra = [...s.utility.keys()].filter((x) => !s.rates.has(x)).sort();
    const missing = [...s.rates].filter((x) => !s.utility.has(x)).sort();
    if (!extra.length && !missing.length) continue;
    const both = [...s.rates].filter((x) => s.utility.has(x)).sort();
    out.push(
      `${UTILITY_COLUMNS.without}: ${k}: its utility is over suites ${[...s.utility.keys()].sort().map((x) => `${x} ${s.utility.get(x)}`).join(", ")} (runs) while its attack-success rates are over ${[...s.rates].sort().join(", ")}` +
        `${extra.length ? ` (${extra.join(", ")} only in the utility)` : ""}${missing.length ? ` (${missing.join(", ")} only in the rates)` : ""}, so the two are not like for like; ${both.length ? `narrow with --where suite=${both.join(",")} (the suites of both)` : "they share no suite"}`,
    );
  }
  return out;
}
