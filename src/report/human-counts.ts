/**
 * The first sentence of the report's "Against the human consensus" section (new-user report 38 F4): the labels
 * counted apart from the adjudicated rows (an adjudicated label is its item's consensus, not one more annotator's
 * label), the consensus rule as `agree --human` applies it (../agree/consensus.ts: the binary majority, refined on
 * the three-way and then the six scale while one label leads, not "the unique most frequent label"), how many
 * compared items adjudication settled, and the items for adjudication by reason (ties apart from the items whose
 * annotators agree only on a coarser scale).
 */
import { drawnText } from "../agree/drawn-items.js";
import type { HumanAgreementReport } from "../agree/human.js";
import { adjudicatorsText } from "../agree/adjudication-facts.js";
import { countText } from "../format/count-text.js";
import { escapeHtml } from "./escape.js";

const int = (x: number) => x.toLocaleString("en-US");

/** The consensus rule in a few words (../agree/consensus.ts, docs/agree.md "agree --human"). */
export const CONSENSUS_RULE =
  "the annotators' majority on compromised or not, refined on the three-way and then the six-bucket scale while one label leads " +
  "(full / partial / unaffected / unaffected has no binary majority: a tie), or the item's adjudicated label; " +
  "a rate (asr_behaviour, asr_goal) needs only the majority's answer to its own question, so annotators split between unaffected and not_exposed still count as not compromised there";

/**
 * HTML text (escaped): `219 labels from 4 annotators and 10 adjudicated labels on 60 trajectories, scale six; of
 * them, 46 with a consensus (rule) compared with the judges, 10 of them settled by adjudication (by "lead" 10); for
 * adjudication: 1 tie, 3 with a consensus only on a coarser scale (...)`.
 * @param inWhere the count inside --where, when the report has one.
 */
export function humanCountsText(h: HumanAgreementReport, inWhere?: string): string {
  const adjudicatedRows = Object.values(h.consensus.adjudicated_by ?? {}).reduce((a, b) => a + b, 0);
  const votes = h.rows.used - adjudicatedRows;
  const labels = `${int(votes)} label${votes === 1 ? "" : "s"} from ${countText(h.annotators.length, "annotator")}${adjudicatedRows ? ` and ${countText(adjudicatedRows, "adjudicated label")} (not votes)` : ""}`;
  const settled = h.consensus.adjudicated ? `, ${int(h.consensus.adjudicated)} of them settled by adjudication (${escapeHtml(adjudicatorsText({ by: h.consensus.adjudicated_by }))})` : "";
  const forAdj = [h.consensus.ties ? countText(h.consensus.ties, "tie") : "", h.consensus.coarser_than_scale ? `${int(h.consensus.coarser_than_scale)} with a consensus only on a coarser scale (split within compromised or within not compromised, e.g. full vs partial compliance or unaffected vs not_exposed: consensus_coarser_than_scale)` : ""].filter(Boolean);
  return (
    `${labels} on ${int(h.items)} trajectories${inWhere !== undefined ? ` (${inWhere} of them inside --where)` : ""}${drawnText(h.drawn) ? ` (${escapeHtml(drawnText(h.drawn)!)})` : ""}, scale ${escapeHtml(h.scale)}; ` +
    `of them, ${int(h.consensus.n)} with a consensus (${CONSENSUS_RULE}) compared with the judges${settled}; ` +
    `for adjudication: ${forAdj.length ? forAdj.join(", ") : "none"}`
  );
}
