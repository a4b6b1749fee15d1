/**
 * Finite stratified populations with a known truth, shared by the seeded coverage simulations of the design-weighted
 * intervals (test/estimate/unvaried-strata.test.ts, test/agree/design-stratum-wise.test.ts): each stratum's units are
 * fixed (the first `pos` true), and the judge either says "no" on every unit (`judgeNo`) or flips every k-th unit.
 */

/** One stratum: size N, labelled count n, true count pos; the judge says "no" everywhere, or is wrong on every k-th unit. */
export interface SimStratum {
  name: string;
  N: number;
  n: number;
  pos: number;
  /** every k-th unit's judge verdict is the opposite of the truth (0 or absent: none) */
  flipEvery?: number;
  /** the judge says "no" (not compromised) on every unit */
  judgeNo?: boolean;
}

/**
 * The new user's design of session 49 (run def, sample s1: strata agent_model x condition, committee A/D; sizes N_c and
 * labelled counts n_c as drawn): four A strata where the judge says "no" everywhere and the truth is `miss` x N, and
 * four D strata built by `d`.
 */
export function newUserDesign(miss: number, d: (name: string, N: number, n: number) => SimStratum): SimStratum[] {
  const a = (name: string, N: number, n: number): SimStratum => ({ name: `A|${name}`, N, n, pos: Math.round(miss * N), judgeNo: true });
  return [a("g-rup", 432, 13), a("g-tf", 524, 14), a("g-pi", 519, 14), a("l-rup", 656, 15), d("g-rup", 197, 27), d("g-tf", 105, 9), d("g-pi", 110, 7), d("l-rup", 141, 15)];
}

/** Each stratum's units, in order: `{ stratum, i, truth, judge }` (deterministic). */
export function simPopulation(strata: SimStratum[]): Array<Array<{ stratum: string; i: number; truth: boolean; judge: boolean }>> {
  return strata.map((s) =>
    Array.from({ length: s.N }, (_, i) => {
      const truth = i < s.pos;
      const judge = s.judgeNo ? false : s.flipEvery && i % s.flipEvery === 0 ? !truth : truth;
      return { stratum: s.name, i, truth, judge };
    }),
  );
}
