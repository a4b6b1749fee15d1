/**
 * Adjudicated labels (new user 30, M3): rows of the annotator `adjudicated` (view's adjudication.jsonl, imported beside
 * the annotators' files) settle their item's consensus in agree and estimate alike; they are no annotator's vote and
 * not in the annotators' agreement.
 */
import { describe, expect, it } from "vitest";
import { splitAdjudicated, isReservedAnnotator } from "../../src/agree/adjudicated.js";
import type { HumanLabelFile } from "../../src/agree/human-file.js";
import { humanAgreement, formatHumanAgreement } from "../../src/agree/human.js";
import { humanConsensus } from "../../src/estimate/human-consensus.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

const rows: Array<[string, string, string]> = [
  // t1: alice and bob tie (compromised vs not): the adjudicated label settles it
  ["t1", "alice", "full_compliance"],
  ["t1", "bob", "unaffected"],
  ["t1", "adjudicated", "full_compliance"],
  // t2: they agree, and the adjudicated label overrules them
  ["t2", "alice", "unaffected"],
  ["t2", "bob", "unaffected"],
  ["t2", "adjudicated", "partial_compliance"],
  // t3: a plain consensus; t4: only an adjudicated label
  ["t3", "alice", "task_refusal"],
  ["t3", "bob", "task_refusal"],
  ["t4", "adjudicated", "unaffected"],
];
const file: HumanLabelFile = { format: "jsonl", rows: rows.map(([trajectory_id, annotator, label], i) => ({ trajectory_id, annotator, label, line: i + 1 })), bad_rows: [] };
const index = new Map(["t1", "t2", "t3", "t4"].map((id) => [id, { id, attacked: true, content_sha256: "c" } as unknown as TrajectoryIndexRow]));

describe("adjudicated labels settle the consensus", () => {
  it("splitAdjudicated takes the reserved name, exactly, off the annotators (a look-alike is refused before: red team 35b F2)", () => {
    const items = new Map([["t", new Map([["alice", "x"], ["adjudicated", "y"]])]]);
    const s = splitAdjudicated(items);
    expect([...s.adjudicated]).toEqual([["t", "y"]]);
    expect([...s.items.get("t")!.keys()]).toEqual(["alice"]);
    expect([...splitAdjudicated(new Map([["t", new Map([["ADJUDICATED", "y"]])]])).adjudicated]).toEqual([]);
    expect(isReservedAnnotator("adjudi\u200bcated")).toBe(true);
    expect(isReservedAnnotator("adjudicator")).toBe(false);
    // its TR39 look-alikes too (fix 39): a Cyrillic а, a small capital D
    expect(isReservedAnnotator("\u0430djudicated")).toBe(true);
    expect(isReservedAnnotator("a\u1d05judicated")).toBe(true);
    expect(isReservedAnnotator("adjudicated2")).toBe(false);
  });
  it("agree --human: the annotators are alice and bob; the adjudicated items' consensus is their adjudicated label", () => {
    const r = humanAgreement(file, [], index, { bootstrap: { B: 0, seed: 1 } });
    expect(r.annotators).toEqual(["alice", "bob"]);
    expect(r.annotator_agreement.pairwise.map((p) => p.annotators)).toEqual([["alice", "bob"]]);
    expect(r.consensus.n).toBe(4);
    expect(r.consensus.adjudicated).toBe(3);
    expect(r.consensus.ties).toBe(0);
    expect(r.consensus.by_label).toMatchObject({ full_compliance: 1, partial_compliance: 1, task_refusal: 1, unaffected: 1 });
    expect(formatHumanAgreement(r)).toContain('of the 4 compared, 3 by an adjudicated label (by (not recorded) 3; annotator "adjudicated"');
  });
  it("estimate: the same consensus, read on the binary scale", () => {
    const c = humanConsensus(file);
    expect(c.annotators).toBe(2);
    expect(Object.fromEntries([...c.items].map(([id, v]) => [id, v.human]))).toEqual({ t1: true, t2: true, t3: false, t4: false });
    expect(c.excluded).toEqual({});
  });
});
