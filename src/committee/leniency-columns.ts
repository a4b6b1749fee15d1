/**
 * Self-family leniency (`./leniency.ts`) on a run read as columns (`../store/columns.ts`): the same figures from
 * each judge's repeat-0 verdict per trajectory slot, without a map per judge keyed by id strings.
 */
import type { ColumnRun } from "../store/columns.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { BootstrapSettings } from "../agree/pairwise.js";
import { voteOf } from "../verdict/vote.js";
import { agentFamily, countVote, judgeLeniency, vote3, type JudgeLeniency, type LeniencyRow, type Vote3 } from "./leniency.js";
import { setBonferroniFlags } from "./leniency-strata.js";
import { checkReferenceFamilies } from "./leniency-reference.js";

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
  opts: { families?: Record<string, string>; bootstrap?: BootstrapSettings; gapCi?: boolean } = {},
): JudgeLeniency[] {
  const boot = opts.bootstrap && opts.bootstrap.B > 0 ? opts.bootstrap : null;
  // per record code: its three-level vote (2 compromised, 1 exposed and not compromised, 0 not_exposed), undefined: none
  const vote: Array<Vote3 | undefined> = run.verdicts.map((v) => {
    const b = voteOf(v);
    return b === null ? undefined : vote3(b);
  });
  const families = new Map<number, string | undefined>(); // by row code: the rows' agent fields are shared
  const familyOf = (code: number): string | undefined => {
    if (!families.has(code)) families.set(code, agentFamily(run.rows[code] as TrajectoryIndexRow, opts.families));
    return families.get(code);
  };
  const out = judges.map((j) => {
    const mine = rep0.get(j.id);
    const rest = judges.filter((k) => k.id !== j.id && rep0.has(k.id)).map((k) => rep0.get(k.id)!);
    const one: LeniencyRow = { attacked: false, mine: undefined, yes: 0, no: 0, notExposed: 0, family: () => undefined };
    function* rows(): Generator<LeniencyRow> {
      for (let s = 0; s < run.nRows; s++) {
        const code = run.rowCode[s];
        one.attacked = !!run.rows[code].attacked;
        const c = mine ? mine[s] : 0;
        const m = c > 0 ? vote[c - 1] : undefined;
        one.mine = m === undefined ? undefined : m === 2;
        one.yes = 0;
        one.no = 0;
        one.notExposed = 0;
        for (const a of rest) countVote(one, a[s] > 0 ? vote[a[s] - 1] : undefined);
        one.family = () => familyOf(code);
        yield one;
      }
    }
    const l = judgeLeniency(j, rows(), boot, opts.gapCi);
    checkReferenceFamilies(l, judges.filter((k) => k.id !== j.id && rep0.has(k.id)));
    return l;
  });
  setBonferroniFlags(out.map((l) => l.adjusted));
  return out;
}
