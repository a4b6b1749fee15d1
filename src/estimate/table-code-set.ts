/**
 * The paper table's note on rows whose labels code mostly set (newuser52 finding 5). When no finding of a judge
 * holds, its label is what code establishes (`label_basis` `injection_absent` -> `not_exposed`: the injected text is
 * not in what the agent saw, e.g. a detector defense removed it; `exposure_found` -> `unaffected`: the text was there,
 * the judge's `not_exposed` overruled; ../verdict/code-established.ts). A row most of whose labels are so set reads
 * its rates off code's checks, not the judge's evidence: AgentDojo's transformers_pi_detector under gpt-4o, 484 of 629
 * labels `injection_absent`, 8.4% asr_goal, which `agree` warns of and the table said nothing about. The note names
 * each such row with its count, share and bases, as a `note:` of the table (text, the CSV's `notes`, LaTeX `%` lines, the
 * report), by the threshold `agree` warns at ({@link CODE_ESTABLISHED_THRESHOLDS}: more than 50% of at least 10).
 * A committee's label counts as code-set when more than half of the votes that carried it were (../committee/code-majority.ts).
 */
import type { CommitteeVerdict, Verdict } from "../types.js";
import { binaryOf } from "../rubric/buckets.js";
import { CODE_ESTABLISHED_THRESHOLDS, isCodeEstablished } from "../verdict/code-established.js";
import type { EstimateSource } from "./run.js";

/**
 * Per trajectory id, the `label_basis` code set its label by, for the table's source: the judge's repeat-0 usable
 * verdict, or a committee label most of whose carrying votes code set (then the commonest basis among those).
 * @param committee the committee's labels (a committee source), else undefined.
 */
export function codeSetOf(verdicts: readonly Verdict[], source: EstimateSource, committee: readonly CommitteeVerdict[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const members = source.kind === "judge" ? new Set([source.judge_id]) : new Set(source.members);
  // each member's repeat-0 verdict of a trajectory, the last one read (as the table's other maps read them)
  const byId = new Map<string, Map<string, Verdict>>();
  for (const v of verdicts) {
    if (v.repeat !== 0 || !members.has(v.judge_id)) continue;
    (byId.get(v.trajectory_id) ?? byId.set(v.trajectory_id, new Map()).get(v.trajectory_id)!).set(v.judge_id, v);
  }
  if (source.kind === "judge") {
    for (const [id, m] of byId) {
      const v = m.get(source.judge_id)!;
      if (v.status === "ok" && v.label && isCodeEstablished(v)) out.set(id, v.label_basis!);
    }
  }
  for (const c of committee ?? []) {
    const b = committeeCodeBasis(c, [...(byId.get(c.trajectory_id)?.values() ?? [])]);
    if (b !== undefined) out.set(c.trajectory_id, b);
  }
  return out;
}

/**
 * The basis code set a committee label by: more than half of the votes that carried it (its members' usable repeat-0
 * verdicts on its side, compromised or not) code-established, then the commonest basis among those; else undefined.
 * @param voters the members' repeat-0 verdicts of the trajectory (others and unusable ones are skipped).
 */
export function committeeCodeBasis(c: Pick<CommitteeVerdict, "status" | "label">, voters: readonly Verdict[]): string | undefined {
  if (c.status !== "ok" || !c.label) return undefined;
  const carrying = voters.filter((v) => v.status === "ok" && v.label && binaryOf(v.label) === binaryOf(c.label!));
  const code = carrying.filter(isCodeEstablished);
  if (carrying.length === 0 || 2 * code.length <= carrying.length) return undefined;
  const n: Record<string, number> = {};
  for (const v of code) n[v.label_basis!] = (n[v.label_basis!] ?? 0) + 1;
  return Object.entries(n).sort(([a, p], [b, q]) => q - p || a.localeCompare(b))[0][0];
}

/** {@link codeSetOf} by row position (`ids[i]`), as the table's input reads it. */
export function codeBasisOf(verdicts: readonly Verdict[], source: EstimateSource, committee: readonly CommitteeVerdict[] | undefined, ids: readonly string[]): (i: number) => string | undefined {
  const m = codeSetOf(verdicts, source, committee);
  return (i) => m.get(ids[i]);
}

/** One row's tally: its attacked labels (usable) and those code set, by basis. */
interface RowTally {
  name: string;
  labels: number;
  code: number;
  by: Record<string, number>;
}

/** Tallies the table's rows, then writes the note ({@link CodeSetTally.note}). */
export class CodeSetTally {
  private readonly rows: RowTally[] = [];

  /**
   * @param basis the code basis of a row position's label (undefined: not code-set, or no input gives it);
   * @param usable whether the row position has a usable label of the table's source.
   */
  constructor(
    private readonly basis: ((i: number) => string | undefined) | undefined,
    private readonly usable: (i: number) => boolean,
  ) {}

  /** Add a row (`name`: `model` or `model | condition`) over its attacked run positions `att`. */
  add(name: string, att: readonly number[]): void {
    if (!this.basis) return;
    const t: RowTally = { name, labels: 0, code: 0, by: {} };
    for (const i of att) {
      if (!this.usable(i)) continue;
      t.labels++;
      const b = this.basis(i);
      if (b === undefined) continue;
      t.code++;
      t.by[b] = (t.by[b] ?? 0) + 1;
    }
    this.rows.push(t);
  }

  /** The note, or null when no row is above the threshold. */
  note(): string | null {
    const th = CODE_ESTABLISHED_THRESHOLDS;
    const high = this.rows.filter((r) => r.labels >= th.minLabels && r.code / r.labels > th.share);
    if (!high.length) return null;
    const each = high.map((r) => `${r.name} ${r.code} of ${r.labels} (${((100 * r.code) / r.labels).toFixed(1)}%; ${Object.entries(r.by).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(", ")})`);
    return (
      `note: ESTABLISHED BY CODE (more than ${Math.round(100 * th.share)}% of a row's attacked labels with a usable verdict were set by code, not by the judge's verified evidence: ` +
      `injection_absent = the injected text is not in what the agent saw (e.g. a detector defense removed it), so not_exposed; exposure_found = the text was there and the judge's not_exposed was overruled to unaffected): ` +
      `${each.join("; ")}; those rows' rates measure code's checks there, not the judge (agree --reference warns the same)`
    );
  }
}
