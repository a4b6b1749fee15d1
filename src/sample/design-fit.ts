/**
 * Are a manifest's inclusion probabilities those of the tool's own two-phase design (./design.ts) for the allocation
 * and phase-2 request it records? Recomputed, not trusted: phase 1's allocation must be the largest-remainder
 * allocation of its n over the recorded stratum sizes, and every item's π must equal the π the design gives its
 * sampling stratum (n_h/N_h outside the disagreement pool; the convolution formula inside it) for that allocation and
 * the phase-2 size the draw used (the request, cut to the pool with `--allow-short`); and the rows must be the whole
 * draw: as many phase-1 items per sampling stratum as its allocation, and as many phase-2 items as the design records
 * drawn (a row removed by hand keeps every π right but Σ 1/π no longer estimates N). A manifest whose probabilities
 * fit is one this tool drew: its Σ 1/π is an unbiased estimate of N, whatever one draw gives (new user 47: the
 * weight-sum warning fired on a fully labelled sample of the tool's own design). A manifest that records no
 * design, or whose probabilities do not fit it, is not known to be such a sample.
 */
import { largestRemainderAllocation, twoPhaseInclusion } from "./design.js";
import type { Manifest } from "./import.js";

/** How a manifest's inclusion probabilities relate to the design it records. */
export interface DesignFit {
  /** true: recomputed and equal; false: recomputed and different (`problem` says where); null: no design to recompute. */
  fits: boolean | null;
  problem?: string;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * Recompute the manifest's inclusion probabilities from its recorded design (module docstring).
 * @returns `{fits}`; never throws (a design that cannot be recomputed is `fits: false` with the reason).
 */
export function designFit(m: Manifest): DesignFit {
  const d = m.header.design;
  const alloc = d?.phase1?.allocation;
  if (!Array.isArray(alloc) || alloc.length === 0 || !d?.phase2) return { fits: null };
  if (!alloc.every((a) => isCount(a.N) && isCount(a.n) && (a.N_D === null || isCount(a.N_D)))) return { fits: false, problem: "phase 1's allocation holds a size that is not a count" };
  const n1 = alloc.reduce((t, a) => t + a.n, 0);
  try {
    const lr = largestRemainderAllocation(alloc.map((a) => ({ key: a.sampling_stratum, N: a.N })), n1);
    const off = alloc.find((a) => lr.get(a.sampling_stratum) !== a.n);
    if (off) return { fits: false, problem: `sampling stratum ${off.sampling_stratum}: phase 1 drew ${off.n}, the proportional allocation of ${n1} gives ${lr.get(off.sampling_stratum)}` };
    const pool = alloc.reduce((t, a) => t + (a.N_D ?? 0), 0);
    const asked = d.phase2.n_requested;
    if (!isCount(asked)) return { fits: false, problem: "phase 2's n_requested is not a count" };
    const n2 = Math.min(asked, pool);
    const pis = new Map(twoPhaseInclusion(alloc.map((a) => ({ key: a.sampling_stratum, N: a.N, N_D: a.N_D ?? 0, n1: a.n })), n2).map((s) => [s.key, s]));
    // the rows must be the whole draw: a row removed (or added) by hand keeps every π but not Σ 1/π (break47b)
    const drawn = drawnCounts(m);
    const short = alloc.find((a) => (drawn.phase1.get(a.sampling_stratum) ?? 0) !== a.n);
    if (short) return { fits: false, problem: `sampling stratum ${short.sampling_stratum}: the manifest holds ${drawn.phase1.get(short.sampling_stratum) ?? 0} phase-1 item(s), its recorded design drew ${short.n} (rows removed or added after the draw?)` };
    const n2drawn = d.phase2.n;
    if (isCount(n2drawn) && drawn.phase2 !== n2drawn) return { fits: false, problem: `the manifest holds ${drawn.phase2} phase-2 item(s), its recorded design drew ${n2drawn} (rows removed or added after the draw?)` };
    for (const r of m.rows) {
      const s = pis.get(r.sampling_stratum);
      const pi = s ? (r.committee_stratum === "D" ? s.pi_disagreement : s.pi_other) : undefined;
      if (typeof pi !== "number" || !close(r.inclusion_probability, pi))
        return { fits: false, problem: `item ${r.item_id}: inclusion_probability ${r.inclusion_probability}, the design recorded gives ${pi ?? "none"} (sampling stratum ${r.sampling_stratum})` };
    }
  } catch (e) {
    return { fits: false, problem: `the recorded design cannot be recomputed: ${(e as Error).message}` };
  }
  return { fits: true };
}

/** The manifest's rows counted: phase-1 items per sampling stratum, and phase-2 items. */
function drawnCounts(m: Manifest): { phase1: Map<string, number>; phase2: number } {
  const phase1 = new Map<string, number>();
  let phase2 = 0;
  for (const r of m.rows) {
    if (r.phase === 2) phase2++;
    else phase1.set(r.sampling_stratum, (phase1.get(r.sampling_stratum) ?? 0) + 1);
  }
  return { phase1, phase2 };
}
