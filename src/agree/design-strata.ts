/**
 * Per-stratum counts of `agree --human`'s labelled items for its design-weighted figures (./human.ts): the share of
 * each stratum's labelled items inside the attacked domain (to scale N_h to the domain), and n_h per stratum counting
 * the items outside a rater's domain too (to tell a census from a sample, ./design-zero-se.ts).
 */

/**
 * Per stratum, labelled items counted / every labelled item (1 when nothing was left out).
 * @param counted the items counted; @param all every labelled item; @param stratumOf each item's stratum.
 */
export function domainShare(counted: readonly string[], all: readonly string[], stratumOf: ReadonlyMap<string, string>): Map<string, number> {
  const tally = (ids: readonly string[]) => {
    const m = new Map<string, number>();
    for (const id of ids) {
      const x = stratumOf.get(id);
      if (x !== undefined) m.set(x, (m.get(x) ?? 0) + 1);
    }
    return m;
  };
  const c = tally(counted);
  const out = new Map<string, number>();
  for (const [x, n] of tally(all)) out.set(x, (c.get(x) ?? 0) / n);
  return out;
}

/**
 * n_h per stratum: the rater's items (`strata`, one name per item) plus those outside its domain (`outOfDomain`,
 * stratum -> count), as `designAgreement` counts them in its weights N_h/n_h.
 */
export function stratumCounts(strata: readonly string[], outOfDomain: Readonly<Record<string, number>>): Map<string, number> {
  const n = new Map<string, number>();
  for (const x of strata) n.set(x, (n.get(x) ?? 0) + 1);
  for (const [x, k] of Object.entries(outOfDomain)) n.set(x, (n.get(x) ?? 0) + k);
  return n;
}
