/**
 * Where each labelled trajectory of `agree --human` stands in the run: in the run's (possibly `--where`-filtered)
 * index, in the run but outside `--where`, or not in the run at all; and step (3) of `humanAgreement`, each item's
 * consensus or the one reason it is left out.
 *
 * Why apart from not_in_run: `agree --human --where F` got the filtered index only, so a labelled trajectory the run
 * holds but F drops was called "not in the run" (and its attacked flag "unknown"), where `estimate --human --where F`
 * called it `outside_where` (../estimate/label-population.ts): a wrong reason, and a count that did not line up.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import { coarserScale, consensusOf } from "./consensus.js";
import { CONTENT_CHANGED } from "./label-pairing.js";
import { labelOnScale, SCALE_CATEGORIES, type HumanScale } from "../rubric/scale.js";

/** The reason a labelled trajectory the run holds but `--where` drops is left out (estimate's name too). */
export const OUTSIDE_WHERE = "outside_where";

/**
 * The order the item reasons are decided in (and printed): content changed, not in the run, unattacked, outside
 * `--where` (estimate ranks unattacked before outside_where too), then the consensus reasons.
 */
export const ITEM_REASON_ORDER: readonly string[] = [CONTENT_CHANGED, "not_in_run", "unattacked", OUTSIDE_WHERE, "consensus_tie", "consensus_coarser_than_scale"];

/** Item reasons and counts in {@link ITEM_REASON_ORDER} (others after, by name): agree's text and the report print them so. */
export function orderedReasons(o: Readonly<Record<string, number>>): Array<[string, number]> {
  const rank = (k: string) => (ITEM_REASON_ORDER.includes(k) ? ITEM_REASON_ORDER.indexOf(k) : ITEM_REASON_ORDER.length);
  return Object.entries(o).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Where a labelled trajectory stands ({@link runLookup}). */
export interface RunPlace {
  /** Its row: of the index compared, or of the run outside it; undefined when the run does not hold it. */
  row?: TrajectoryIndexRow;
  /** True when the run holds it but the index compared (`--where`) does not. */
  outside: boolean;
}

/**
 * Look up labelled trajectories in the index compared, then in the whole run.
 * @param index the index compared (after `--where`).
 * @param population every trajectory of the run before `--where` (its rows not in `index` are outside `--where`).
 * @param labelled the labelled trajectory ids (only those rows are kept).
 */
export function runLookup(index: ReadonlyMap<string, TrajectoryIndexRow>, population: readonly TrajectoryIndexRow[], labelled: ReadonlySet<string>): (id: string) => RunPlace {
  const outside = new Map<string, TrajectoryIndexRow>();
  for (const r of population) if (labelled.has(r.id) && !index.has(r.id)) outside.set(r.id, r);
  return (id) => {
    const row = index.get(id);
    if (row) return { row, outside: false };
    const o = outside.get(id);
    return o ? { row: o, outside: true } : { outside: false };
  };
}

/** What {@link formConsensus} returns. */
export interface FormedConsensus {
  consensus: Map<string, string>;
  adjudication: Array<{ trajectory_id: string; labels: Record<string, string> }>;
  byLabel: Record<string, number>;
  itemEx: Record<string, number>;
  /** Of the consensus items, those whose consensus is an adjudicated label (`adjudicated`). */
  adjudicated: number;
  /** Each item left out, by its reason (the per-item view of `itemEx`: ./design-nonresponse.ts counts them by stratum). */
  reasonOf: Map<string, string>;
}

/**
 * Step (3) of `humanAgreement`: each item's human consensus (`consensusOf`, ./consensus.ts) put on `scale`;
 * an item with no lead, or a lead only on a coarser scale, goes to adjudication; items whose trajectory changed since
 * the sample (`changed`: `content_changed_since_sample`), items not in the run (`not_in_run`), unattacked ones
 * (`unattacked`: no agreement figure counts them), ones the run holds but `--where` drops (`outside_where`) and labels
 * off the scale are left out by reason (`itemEx`). Each labelled item is counted once, in that order
 * ({@link ITEM_REASON_ORDER}): consensus items + `itemEx` = the file's labelled items. An item with an adjudicated label
 * (`adjudicated`: trajectory id -> label, ./adjudicated.ts) takes it as its consensus, after the run-place reasons.
 */
export function formConsensus(
  items: ReadonlyMap<string, ReadonlyMap<string, string>>,
  place: (id: string) => RunPlace,
  formScale: HumanScale,
  scale: HumanScale,
  onScale: (l: string) => string,
  changed: ReadonlySet<string>,
  adjudicated: ReadonlyMap<string, string> = new Map(),
): FormedConsensus {
  let nAdjudicated = 0;
  const consensus = new Map<string, string>();
  const adjudication: FormedConsensus["adjudication"] = [];
  const byLabel: Record<string, number> = Object.fromEntries(SCALE_CATEGORIES[scale].map((c) => [c, 0]));
  const itemEx: Record<string, number> = {};
  const reasonOf = new Map<string, string>();
  let current = "";
  const exItem = (r: string) => {
    reasonOf.set(current, r);
    itemEx[r] = (itemEx[r] ?? 0) + 1;
  };
  for (const [id, m] of items) {
    current = id;
    // labels given for another text than the run's now (./label-pairing.ts): nothing to adjudicate or compare
    if (changed.has(id)) {
      exItem(CONTENT_CHANGED);
      continue;
    }
    // one population, each item counted once (review 17 item 3): not in the run, then unattacked (left out of every
    // agreement figure, ./attacked-only.ts), then outside --where, before any tie, so the ties listed are the compared items' own
    const p = place(id);
    if (!p.row) {
      exItem("not_in_run");
      continue;
    }
    if (p.row.attacked === false) {
      exItem("unattacked");
      continue;
    }
    if (p.outside) {
      exItem(OUTSIDE_WHERE);
      continue;
    }
    // an adjudicated label settles the item (./adjudicated.ts): the consensus, whatever the annotators gave
    const settled = adjudicated.get(id);
    if (settled !== undefined) {
      const a = labelOnScale(settled, scale);
      if ("reason" in a) exItem(a.reason);
      else {
        consensus.set(id, a.label);
        byLabel[a.label]++;
        nAdjudicated++;
      }
      continue;
    }
    const top = consensusOf([...m.values()], formScale);
    // no lead on any scale, or only on a coarser scale than the one compared: settled by adjudication
    const coarse = top !== null && coarserScale(top.scale, scale);
    if (top === null || coarse) {
      adjudication.push({ trajectory_id: id, labels: Object.fromEntries([...m].sort(([x], [y]) => x.localeCompare(y)).map(([a, l]) => [a, onScale(l)])) });
      exItem(coarse ? "consensus_coarser_than_scale" : "consensus_tie");
      continue;
    }
    const c = labelOnScale(top.label, scale);
    if ("reason" in c) {
      exItem(c.reason);
      continue;
    }
    consensus.set(id, c.label);
    byLabel[c.label]++;
  }
  return { consensus, adjudication, byLabel, itemEx, adjudicated: nAdjudicated, reasonOf };
}
