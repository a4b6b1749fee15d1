/**
 * What `agree --human`'s post-stratified (design-weighted) figures do with the attacked items that have no human
 * consensus on the compared scale (new-user report 38 F2): a `consensus_tie`, or a consensus only on a coarser
 * scale (`consensus_coarser_than_scale`: on the six scale, e.g. full vs partial compliance, or unaffected vs not_exposed). They are item
 * nonresponse within their stratum: n_h counts the stratum's items with a consensus on the scale, so each compared
 * item's weight N_h/n_h grows and the left-out items' weight is spread over the stratum's other items (N_h of the
 * attacked domain is unchanged). That is the weighting-class adjustment for nonresponse (Särndal, Swensson &
 * Wretman 1992, sec. 15.6), and is right if a tie is unrelated to agreement within a stratum; it is said per
 * stratum, by reason, so the reader can see how much weight moved.
 */

/** Per stratum, the attacked items the design-weighted figures count and those left out as nonresponse. */
export interface StratumNonresponse {
  /** Attacked items of the stratum in the compared population (with or without a consensus). */
  items: number;
  /** Of those, with a consensus on the scale: n_h of the weights N_h/n_h. */
  compared: number;
  /** Without a consensus on the scale, by reason (`consensus_tie`, `consensus_coarser_than_scale`). */
  without_consensus: Record<string, number>;
}

/**
 * The estimator's name when the label file gives `stratum_size` (`agree --human`'s `estimator`), worded as estimate's
 * N_c/n_c reads (newuser55 #5: "n_h = the stratum's attacked items" beside estimate's "all consensus items of the cell"
 * read as two weightings; the domain's N_h makes them one).
 */
export const STRATUM_SIZE_ESTIMATOR =
  "post-stratified hajek (w = N_h/n_h over the attacked domain, N_h = stratum_size x the attacked share of the stratum's labelled items, n_h = the stratum's attacked items with a consensus on the scale: " +
  "per item stratum_size over the stratum's labelled items, attacked or not, as estimate's N_c/n_c, when every labelled item has a consensus) with stratified linearised SEs";

/** The wording of the rule, in the text and as `weights.nonresponse_rule` in the JSON. */
export const NONRESPONSE_RULE =
  "n_h = the stratum's attacked items with a human consensus on the compared scale (N_h the stratum's attacked part, stratum_size x its labelled items' attacked share: " +
  "so an item weighs stratum_size over the stratum's labelled items, attacked or not, as estimate's N_c/n_c); an item without one (consensus_tie, " +
  "consensus_coarser_than_scale) is nonresponse: left out, its weight spread over its stratum's compared items (N_h unchanged)";

/**
 * Per stratum, the domain items, the compared ones and those left out without a consensus, by reason.
 * @param domain the attacked items kept (each with or without a consensus).
 * @param compared the items with a consensus on the scale.
 * @param reasonOf why an item of `domain` has no consensus (`consensus_tie` or `consensus_coarser_than_scale`).
 * @param stratumOf an item's stratum (items without one are not counted).
 * @returns strata in name order; null when no item has a stratum.
 */
export function nonresponseByStratum(
  domain: readonly string[],
  compared: ReadonlySet<string>,
  reasonOf: (id: string) => string,
  stratumOf: ReadonlyMap<string, string>,
): Record<string, StratumNonresponse> | null {
  const out = new Map<string, StratumNonresponse>();
  for (const id of domain) {
    const h = stratumOf.get(id);
    if (h === undefined) continue;
    let s = out.get(h);
    if (!s) out.set(h, (s = { items: 0, compared: 0, without_consensus: {} }));
    s.items++;
    if (compared.has(id)) s.compared++;
    else {
      const r = reasonOf(id);
      s.without_consensus[r] = (s.without_consensus[r] ?? 0) + 1;
    }
  }
  if (out.size === 0) return null;
  return Object.fromEntries([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The text line for the design-weighted figures: the rule and, when any item was left out, each stratum that lost
 * items (`stratum D|agent_model=m: 2 of 9 (consensus_coarser_than_scale 2)`). Undefined when there is nothing to say.
 */
export function nonresponseText(by: Record<string, StratumNonresponse> | null | undefined): string | undefined {
  if (!by) return undefined;
  const lost = Object.entries(by).filter(([, s]) => s.compared < s.items);
  if (lost.length === 0) return undefined;
  const n = lost.reduce((a, [, s]) => a + s.items - s.compared, 0);
  const parts = lost.map(([h, s]) => `${h}: ${s.items - s.compared} of ${s.items} (${Object.entries(s.without_consensus).map(([k, v]) => `${k} ${v}`).join(", ")})`);
  return `design weights N_h/n_h: ${NONRESPONSE_RULE}; ${n} item${n === 1 ? "" : "s"} left out so, by stratum: ${parts.join("; ")}`;
}
