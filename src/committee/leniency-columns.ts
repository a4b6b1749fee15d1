/**
 * Self-family leniency (`./leniency.ts`) on a run read as columns (`../store/columns.ts`): the same figures from
 * each judge's repeat-0 verdict per trajectory slot, without a map per judge keyed by id strings.
 */
import type { ColumnRun } from "../store/columns.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { BootstrapSettings } from "../agree/pairwise.js";
import { isCompromised } from "../rubric/buckets.js";
import { voteOf } from "../verdict/vote.js";
import { agentFamily, judgeLeniency, type JudgeLeniency, type LeniencyRow } from "./leniency.js";

/**
 * `selfFamilyLeniency` (`./leniency.ts`: the rules and formulas) over a column run's index rows.
 * @param run the run, read with at least `attacked`, `agent_model`, `agent_family` among its row fields.
 * @param rep0 per committee judge, its repeat-0 verdict per slot as a record code + 1 (0: none).
 * @param judges the committee: id and family of each judge, in report order.
 * @returns one entry per judge, in the order given.
 */
export function selfFamilyLeniencyColumns(
  run: ColumnRun,
  rep0: ReadonlyMap<string, Uint32Array>,
  judges: ReadonlyArray<{ id: string; family: string }>,
  opts: { families?: Record<string, string>; bootstrap?: BootstrapSettings } = {},
): JudgeLeniency[] {
  const boot = opts.bootstrap && opts.bootstrap.B > 0 ? opts.bootstrap : null;
  // per record code: 1 compromised, 0 not, -1 no vote
  const vote = run.verdicts.map((v) => {
    const b = voteOf(v);
    return b === null ? -1 : isCompromised(b) ? 1 : 0;
  });
  const families = new Map<number, string | undefined>(); // by row code: the rows' agent fields are shared
  const familyOf = (code: number): string | undefined => {
    if (!families.has(code)) families.set(code, agentFamily(run.rows[code] as TrajectoryIndexRow, opts.families));
    return families.get(code);
  };
  return judges.map((j) => {
    const mine = rep0.get(j.id);
    const rest = judges.filter((k) => k.id !== j.id && rep0.has(k.id)).map((k) => rep0.get(k.id)!);
    const one: LeniencyRow = { attacked: false, mine: undefined, yes: 0, no: 0, family: () => undefined };
    function* rows(): Generator<LeniencyRow> {
      for (let s = 0; s < run.nRows; s++) {
        const code = run.rowCode[s];
        one.attacked = !!run.rows[code].attacked;
        const c = mine ? mine[s] : 0;
        const m = c > 0 ? vote[c - 1] : -1;
        one.mine = m === -1 ? undefined : m === 1;
        one.yes = 0;
        one.no = 0;
        for (const a of rest) {
          const o = a[s] > 0 ? vote[a[s] - 1] : -1;
          if (o === 1) one.yes++;
          else if (o === 0) one.no++;
        }
        one.family = () => familyOf(code);
        yield one;
      }
    }
    return judgeLeniency(j, rows(), boot);
  });
}
