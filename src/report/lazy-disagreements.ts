/**
 * `report`'s agreement with the benchmark's verdicts keeps each rater's disagreements (`ReferenceAgreement.disagreements`:
 * an object and a new id string each, ~150,000 at 1M over three raters) for a library caller only: the page and
 * `--json` never read them. Held from the agreement step to the end of `report`, they were live through its peak
 * steps (ASR by condition, the paper table; issue 26 point 3). Here they are held as slot numbers and bits, and made
 * again, the same objects in the same order, when first read.
 */
import type { ReferenceAgreement } from "../agree/reference.js";
import type { RunIds } from "../store/id-subset.js";

type Disagreement = ReferenceAgreement["disagreements"][number];

/** The keys `referenceFromPairs` gives a disagreement, in its order (`label` only when the judge's label is known). */
const SHAPE = ["trajectory_id", "judge", "reference", "label"];

/**
 * Replace `r.disagreements` by a property that makes the same list (same objects' keys, order and values) on first
 * read, from each one's id slot in `ids`, its two ratings and its label, held in typed arrays meanwhile. Left as it is
 * (the list kept) when any disagreement has another shape or an id `ids` does not give back exactly: no figure moves.
 * @param ids the run's id table the report's column run holds anyway (the committee's verdicts read it when asked).
 * @returns whether the list was replaced.
 */
export function lazyDisagreements(r: ReferenceAgreement, ids: Pick<RunIds, "id" | "slotOf">): boolean {
  const list = r.disagreements;
  const n = list.length;
  const slot = new Int32Array(n);
  const bits = new Uint8Array(n); // 1: judge, 2: reference, 4: a label (its code in `label`)
  const label = new Uint8Array(n);
  const labels: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = list[i];
    let keys = 0;
    for (const k in d) {
      if (k !== SHAPE[keys++]) return false;
    }
    if (keys < 3 || typeof d.judge !== "boolean" || typeof d.reference !== "boolean") return false;
    const s = ids.slotOf(d.trajectory_id);
    if (s < 0 || ids.id(s) !== d.trajectory_id) return false;
    slot[i] = s;
    bits[i] = (d.judge ? 1 : 0) | (d.reference ? 2 : 0);
    if (keys === 4) {
      if (typeof d.label !== "string") return false;
      let c = labels.indexOf(d.label);
      if (c < 0) {
        if (labels.length === 255) return false;
        c = labels.push(d.label) - 1;
      }
      bits[i] |= 4;
      label[i] = c;
    }
  }
  let made: Disagreement[] | null = null;
  Object.defineProperty(r, "disagreements", {
    enumerable: true,
    configurable: true,
    get: () => {
      if (made) return made;
      made = [];
      for (let i = 0; i < n; i++) {
        const b = bits[i];
        made.push({ trajectory_id: ids.id(slot[i]), judge: (b & 1) !== 0, reference: (b & 2) !== 0, ...(b & 4 ? { label: labels[label[i]] } : {}) });
      }
      return made;
    },
  });
  return true;
}
