/**
 * The rows and chart groups of the report's attack-success section: one per (agent model, condition). They were keyed
 * by the printed `model | condition`, so model `M | x` under `c1` and model `M` under `x | c1` made one row and their
 * chart bars overlapped (red team 36 H2). A group is keyed by the tuple; its label is what the page prints, and two
 * groups that print the same get distinct labels (` (2)`, ` (3)`, ... in sort order), in the table and in both charts.
 */

/** One (agent model, condition) group of the attack-success section. */
export interface AsrGroup {
  model: string;
  condition: string;
  /** Its x label in the charts: the model, or `model | condition` with several conditions; unique among the groups. */
  label: string;
  /** Its numbered suffix when another group prints the same (" (2)"), else "". */
  suffix: string;
}

/** The tuple key of a (model, condition): NUL never appears in a printed label, so two tuples never share it. */
export function asrGroupKey(r: { model: string; condition: string }): string {
  return `${r.model}\u0000${r.condition}`;
}

/**
 * The distinct (model, condition) groups of `rows`, sorted by model then condition, each with a unique label.
 * @param withCondition several conditions: the label is `model | condition`, else the model alone.
 */
export function asrGroups(rows: ReadonlyArray<{ model: string; condition: string }>, withCondition: boolean): AsrGroup[] {
  const byKey = new Map<string, { model: string; condition: string }>();
  for (const r of rows) if (!byKey.has(asrGroupKey(r))) byKey.set(asrGroupKey(r), { model: r.model, condition: r.condition });
  const sorted = [...byKey.values()].sort((a, b) => a.model.localeCompare(b.model) || a.condition.localeCompare(b.condition));
  const printed = (g: { model: string; condition: string }) => (withCondition ? `${g.model} | ${g.condition}` : g.model);
  const used = new Set(sorted.map(printed));
  const seen = new Set<string>();
  return sorted.map((g) => {
    const base = printed(g);
    if (!seen.has(base)) {
      seen.add(base);
      return { ...g, label: base, suffix: "" };
    }
    let k = 2;
    while (used.has(`${base} (${k})`)) k++;
    const suffix = ` (${k})`;
    used.add(base + suffix);
    return { ...g, label: base + suffix, suffix };
  });
}
