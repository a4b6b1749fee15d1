/**
 * The adjudications `ipi-judge view` shows as consensus (red team 37c): the rows of the sample's adjudication.jsonl
 * checked as import-annotations checks them, each row not shown named in /api/meta's warnings (F1); the adjudicated
 * rows of a `--human` file checked the same way (F1); rows of items outside the sample kept when the view
 * adjudicates (F6). Requires the built page (`npm run build`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { viewStudy } from "../helpers/view-study.js";
import { openView, type ViewServer } from "../../src/view/index.js";
import { parseManifest, type Manifest } from "../../src/sample/import.js";
import { checkedAdjudications, rewrittenAdjudications, type AdjudicationRow } from "../../src/view/adjudication-file.js";
import { post, req } from "../helpers/view-http.js";

const v = viewStudy("ipi-view-adjfile-");

async function open(o: { humanFile?: string; sample?: boolean } = {}): Promise<ViewServer> {
  const s = (await openView({ runDir: v.fx.runDir, ...(o.sample === false ? {} : { sampleDir: v.study }), ...(o.humanFile ? { humanFile: o.humanFile } : {}) })).server;
  v.opened.push(s);
  return s;
}
const manifest = (): Manifest => parseManifest(fs.readFileSync(path.join(v.study, "manifest.jsonl"), "utf8"));
const adjFile = () => path.join(v.study, "adjudication.jsonl");
const json = async (s: ViewServer, p: string) => JSON.parse((await req(s, p)).body);
async function humansOf(s: ViewServer, tid: string): Promise<Record<string, string> | undefined> {
  const page = await json(s, `/api/list?q=${encodeURIComponent(tid)}`);
  return page.rows.find((r: { id: string }) => r.id === tid)?.humans;
}

describe("adjudication.jsonl rows import refuses are not shown as consensus (F1)", () => {
  it("shows only the real adjudication; /api/meta names every other row by file, line and why", async () => {
    let s = await open();
    const rows = manifest().rows;
    const ids = rows.map((r) => r.item_id);
    const labels: Array<[string, number, string]> = [
      ["alice", 0, "full_compliance"], ["bob", 0, "unaffected"], ["alice", 1, "unaffected"], ["bob", 1, "unaffected"], ["alice", 2, "unaffected"],
      ["alice", 3, "unaffected"], ["bob", 3, "unaffected"], ["alice", 4, "unaffected"], ["bob", 4, "full_compliance"], ["alice", 6, "unaffected"], ["bob", 6, "full_compliance"],
    ];
    for (const [a, i, l] of labels) expect((await post(s, "/api/sample/annotate", { annotator: a, item_id: ids[i], label: l })).status).toBe(200);
    expect((await post(s, "/api/sample/adjudicate", { item_id: ids[0], label: "partial_compliance", adjudicator: "lead" })).status).toBe(200);
    const snap = { alice: "unaffected", bob: "full_compliance" };
    const k = rows.findIndex((r, i) => i > 6 && r.trajectory_id.split("/").at(-1) !== "none"); // an attacked item nobody labelled
    const forged = [
      { item_id: ids[1], annotator: "adjudicated", label: "full_compliance", adjudicator: "x", annotators: { alice: "unaffected", bob: "unaffected" } }, // line 2: an agreement
      { item_id: ids[2], annotator: "adjudicated", label: "full_compliance", adjudicator: "x" }, // line 3: no snapshot
      { item_id: ids[3], annotator: "bob", label: "full_compliance" }, // line 4: an annotator's row
      { item_id: ids[4], annotator: "adjudicated", label: "<img src=x> consensus", adjudicator: "x", annotators: snap }, // line 5: off the scale
      { item_id: ids[6], annotator: "adjudicated", label: "unaffected", adjudicator: "x", annotators: snap }, // line 6
      { item_id: ids[6], annotator: "adjudicated", label: "full_compliance", adjudicator: "y", annotators: snap }, // line 7: a second label for item 6
      { item_id: ids[k], annotator: "adjudicated", label: "unaffected", adjudicator: "x", annotators: snap }, // line 8: an item nobody labelled
    ];
    fs.appendFileSync(adjFile(), forged.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const f = adjFile();
    await s.close();
    s = await open(); // the view started again on the folder as the rows left it
    expect(await humansOf(s, rows[0].trajectory_id)).toEqual({ alice: "full_compliance", bob: "unaffected", adjudicated: "partial_compliance" });
    expect(await humansOf(s, rows[1].trajectory_id)).toEqual({ alice: "unaffected", bob: "unaffected" });
    expect(await humansOf(s, rows[2].trajectory_id)).toEqual({ alice: "unaffected" });
    expect(await humansOf(s, rows[3].trajectory_id)).toEqual({ alice: "unaffected", bob: "unaffected" });
    expect(await humansOf(s, rows[4].trajectory_id)).toEqual({ alice: "unaffected", bob: "full_compliance" });
    expect(await humansOf(s, rows[6].trajectory_id)).toEqual({ alice: "unaffected", bob: "full_compliance" });
    const w: string[] = (await json(s, "/api/meta")).warnings;
    const of = (line: number) => w.filter((x) => x.startsWith(`${f} line ${line}: `));
    expect(of(1)).toEqual([]);
    expect(of(2)).toEqual([expect.stringMatching(/settling no disagreement \(the annotators' labels it records: "alice"=unaffected, "bob"=unaffected\).*: not shown as the item's consensus$/)]);
    expect(of(3)).toEqual([expect.stringMatching(/without the annotators' labels it settled.*: not shown as the item's consensus$/)]);
    expect(of(4)).toEqual([expect.stringMatching(/^\S+ line 4: annotator "bob", not "adjudicated": not an adjudication/)]);
    expect(of(5)).toEqual([expect.stringMatching(/label "<img src=x> consensus" is not on the sample's six scale \(allowed: .*\): not shown as the item's consensus$/)]);
    expect(of(7)).toEqual([`${f} line 7: item ${ids[6]} adjudicated "full_compliance" here and "unaffected" at line 6: neither is shown as its consensus (import-annotations refuses the file; keep one adjudication per item: adjudicate the item again in the view)`]);
    // a snapshot of labels nobody gave: import takes it, so it is shown, and said
    expect(await humansOf(s, rows[k].trajectory_id)).toEqual({ adjudicated: "unaffected" });
    expect(w.filter((x) => x.startsWith(`${f}: item ${ids[k]} `))).toEqual([
      `${f}: item ${ids[k]} was adjudicated "unaffected" when the annotators' labels were "alice"=unaffected, "bob"=full_compliance; the view sees none of their labels now (labels collected in tasks.csv or Label Studio are in the file import-annotations wrote: start the view with --human FILE to see them; if they were given in the view, they were removed since): shown as its consensus, as import-annotations takes it; adjudicate the item again if it no longer settles them`,
    ]);
    expect(w.filter((x) => x.includes(`item ${ids[0]} was adjudicated`))).toEqual([]);
    // the adjudication page shows no adjudication for items whose rows were refused
    const d = await json(s, "/api/sample/disagreements");
    const adj = Object.fromEntries(d.items.map((x: { item_id: string; adjudicated?: { label: string } }) => [x.item_id, x.adjudicated?.label ?? null]));
    expect(adj).toMatchObject({ [ids[0]]: "partial_compliance", [ids[4]]: null, [ids[6]]: null });
  });
});

describe("adjudicating keeps the rows of items outside the sample (F6)", () => {
  it("1,000 rows of other items survive one adjudication; they are named in one warning, not shown", async () => {
    const s = await open();
    const ids = manifest().rows.map((r) => r.item_id);
    let other = "";
    for (let i = 0; i < 1000; i++) other += JSON.stringify({ item_id: `other-${i}`, annotator: "adjudicated", label: "unaffected", adjudicator: "x", annotators: { a: "unaffected", b: "full_compliance" } }) + "\n";
    fs.appendFileSync(adjFile(), other);
    const before = fs.readFileSync(adjFile(), "utf8").trim().split("\n");
    const r = await post(s, "/api/sample/adjudicate", { item_id: ids[4], label: "not_exposed", adjudicator: "lead" });
    expect(r.status, r.body).toBe(200);
    const after = fs.readFileSync(adjFile(), "utf8").trim().split("\n");
    // item 4's rows replaced by the new one; every other line kept as it was
    expect(after.length).toBe(before.length - before.filter((l) => JSON.parse(l).item_id === ids[4]).length + 1);
    expect(after.filter((l) => l.includes('"other-')).length).toBe(1000);
    expect(after.filter((l) => !JSON.parse(l).item_id.startsWith("other-")).map((l) => JSON.parse(l).item_id)).toEqual(
      [...before.filter((l) => !l.includes('"other-') && JSON.parse(l).item_id !== ids[4]), JSON.stringify({ item_id: ids[4] })].map((l) => JSON.parse(l).item_id).sort((a, b) => ids.indexOf(a) - ids.indexOf(b)),
    );
    expect(await humansOf(s, manifest().rows[4].trajectory_id)).toMatchObject({ adjudicated: "not_exposed" });
    const w: string[] = (await json(s, "/api/meta")).warnings;
    expect(w.filter((x) => x.includes("not in this sample's manifest"))).toEqual([
      `${adjFile()}: 1000 row(s) name items not in this sample's manifest (line ${before.length - 999} item "other-0", line ${before.length - 998} item "other-1", line ${before.length - 997} item "other-2", line ${before.length - 996} item "other-3", line ${before.length - 995} item "other-4", and 995 more): not shown; kept in the file`,
    ]);
  });

  it("rewrittenAdjudications: the item's rows replaced, others in task order, foreign rows after in file order", () => {
    const order = new Map([["a", 0], ["b", 1], ["c", 2]]);
    const row = (item_id: string, label: string) => ({ item_id, annotator: "adjudicated", label, adjudicator: "x", annotators: {}, adjudicated_at: "" }) as AdjudicationRow;
    const text = rewrittenAdjudications([row("z", "u"), row("c", "u"), row("b", "u"), row("b", "v"), row("y", "u")], row("b", "w"), order);
    expect(text.trim().split("\n").map((l) => `${JSON.parse(l).item_id}:${JSON.parse(l).label}`)).toEqual(["b:w", "c:u", "z:u", "y:u"]);
  });

  it("checkedAdjudications: the same label twice is kept once, a malformed line is named", () => {
    const f = path.join(v.tmp, "adj-unit.jsonl");
    const r = { item_id: "a", annotator: "adjudicated", label: "Full compliance", adjudicator: "x", annotators: { p: "unaffected", q: "full_compliance" } };
    fs.writeFileSync(f, [JSON.stringify(r), JSON.stringify(r), "{oops"].join("\n") + "\n");
    const c = checkedAdjudications(f, new Set(["a"]), "six");
    expect(c.rows.get("a")?.label).toBe("full_compliance");
    expect(c.warnings).toEqual([`${f} line 3: not JSON, skipped`]);
  });
});

describe("adjudicated rows of a --human file (F1)", () => {
  it("a CSV row 'adjudicated' is not shown as consensus; the warning names file, line and why", async () => {
    const t = manifest().rows.map((r) => r.trajectory_id);
    const csv = path.join(v.tmp, "forged.csv");
    fs.writeFileSync(csv, ["trajectory_id,annotator,label", `${t[0]},alice,unaffected`, `${t[0]},bob,unaffected`, `${t[0]},adjudicated,full_compliance`].join("\n") + "\n");
    const s = await open({ humanFile: csv, sample: false });
    expect(await humansOf(s, t[0])).toEqual({ alice: "unaffected", bob: "unaffected" });
    const w: string[] = (await json(s, "/api/meta")).warnings;
    expect(w.filter((x) => x.startsWith("forged.csv line 4: "))).toEqual([expect.stringMatching(/annotator "adjudicated" without an adjudicator: refused\..*: not shown as the item's consensus$/)]);
  });

  it("an import's adjudicated row (adjudicator and snapshot) is shown as consensus; one off every scale is not", async () => {
    const [t, t1] = manifest().rows;
    const file = path.join(v.tmp, "imported.jsonl");
    const base = { trajectory_id: t.trajectory_id, item_id: t.item_id, content_sha256: t.content_sha256 };
    fs.writeFileSync(
      file,
      [
        { ...base, annotator: "alice", label: "unaffected" },
        { ...base, annotator: "bob", label: "full_compliance" },
        { ...base, annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", settled_labels: { alice: "unaffected", bob: "full_compliance" } },
        { trajectory_id: t1.trajectory_id, item_id: t1.item_id, content_sha256: t1.content_sha256, annotator: "adjudicated", label: "no such label", adjudicator: "lead", settled_labels: { alice: "unaffected", bob: "full_compliance" } },
      ].map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const s = await open({ humanFile: file, sample: false });
    expect(await humansOf(s, t.trajectory_id)).toEqual({ alice: "unaffected", bob: "full_compliance", adjudicated: "full_compliance" });
    expect(await humansOf(s, t1.trajectory_id)).toBeUndefined();
    expect((await json(s, "/api/meta")).warnings.filter((x: string) => x.includes("imported.jsonl"))).toEqual([
      `imported.jsonl line 4: adjudicated label "no such label" is on no label scale: not shown as the item's consensus`,
    ]);
  });
});
