import { describe, expect, it } from "vitest";
import type { ReferenceAgreement } from "../../src/agree/reference.js";
import { IdTable } from "../../src/store/id-table.js";
import { lazyDisagreements } from "../../src/report/lazy-disagreements.js";

const IDS = ["a/banking/t1", "é/slack/t2/🦀", "B/travel/t3", "a/banking/t4"];

function table(): IdTable {
  const t = new IdTable();
  for (const id of IDS) t.add(id);
  return t;
}

/** A reference agreement holding only the list (the rest is not read). */
function withList(list: unknown[]): ReferenceAgreement {
  return { reference: "security", judge_id: "j", disagreements: list } as unknown as ReferenceAgreement;
}

describe("lazyDisagreements (report at 1M, issue 26 point 3)", () => {
  it("gives back the same list, keys in the same order, made once when first read", () => {
    const list = [
      { trajectory_id: IDS[1], judge: true, reference: false, label: "full_compliance" },
      { trajectory_id: IDS[3], judge: false, reference: true },
      { trajectory_id: IDS[0], judge: false, reference: true, label: "unaffected" },
    ];
    const before = JSON.stringify(list);
    const r = withList(list);
    expect(lazyDisagreements(r, table())).toBe(true);
    expect(JSON.stringify(r.disagreements)).toBe(before);
    expect(r.disagreements).toBe(r.disagreements);
    expect(Object.keys(r)).toEqual(["reference", "judge_id", "disagreements"]);
  });

  it("an empty list stays empty", () => {
    const r = withList([]);
    expect(lazyDisagreements(r, table())).toBe(true);
    expect(r.disagreements).toEqual([]);
  });

  it("keeps the list as it is when a disagreement has another shape or an id the table does not hold", () => {
    for (const odd of [
      { trajectory_id: IDS[0], judge: true, reference: false, kind: "x" },
      { judge: true, trajectory_id: IDS[0], reference: false },
      { trajectory_id: "not/in/table", judge: true, reference: false },
      { trajectory_id: IDS[0], judge: 1, reference: false },
      { trajectory_id: IDS[0], judge: true, reference: false, label: undefined },
    ]) {
      const list = [{ trajectory_id: IDS[2], judge: true, reference: false }, odd];
      const r = withList(list);
      expect(lazyDisagreements(r, table())).toBe(false);
      expect(r.disagreements).toBe(list);
    }
  });
});
