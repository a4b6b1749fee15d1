/**
 * `import-annotations` against red team 35b: an adjudicated row is exactly what view writes (annotator `adjudicated`
 * and an adjudicator); look-alikes of the reserved name are refused naming file and line (F2); annotator names are
 * NFC, look-alike names refused naming both (F3); an adjudication whose settled labels changed since is warned (F4).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AnnotationImportError, checkAnnotations, parseAnnotationText, parseManifest } from "../../src/sample/import.js";
import { importAnnotations } from "../../src/sample/index.js";
import type { ManifestRow } from "../../src/sample/export.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-import-adj-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 3, design: {} };
const mrows: ManifestRow[] = ["001", "002", "003"].map((n) => ({ item_id: `abc-${n}`, trajectory_id: `t${n}`, stratum: "A", sampling_stratum: "all", committee_stratum: "A", stratum_size: 30, phase: 1, inclusion_probability: 0.1, weight: 10 }) as ManifestRow);
const manifestText = [header, ...mrows].map((r) => JSON.stringify(r)).join("\n") + "\n";
const manifest = parseManifest(manifestText);

function problems(text: string, file: string): string[] {
  try {
    checkAnnotations(parseAnnotationText(text, file).records, manifest);
  } catch (e) {
    if (e instanceof AnnotationImportError) return e.problems;
    throw e;
  }
  throw new Error("expected an AnnotationImportError");
}

describe("adjudicated rows (F2)", () => {
  it("refuses a look-alike of the reserved name in any case, with invisible characters or full-width, naming file and line", () => {
    const csv = ["item_id,annotator,label", "abc-001,ADJUDICATED,full_compliance", "abc-002,adjudicated\u200b,full_compliance", "abc-003,\uff41djudicated,full_compliance"].join("\n");
    const p = problems(csv, "filled.csv");
    expect(p).toHaveLength(3);
    expect(p[0]).toMatch(/^filled\.csv row 1 \(line 2\): annotator "ADJUDICATED" looks like the reserved name "adjudicated"/);
    expect(p[1]).toContain('annotator "adjudicated⟨U+200B⟩" looks like');
    expect(p[2]).toMatch(/^filled\.csv row 3 \(line 4\)/);
  });

  it("refuses an exact `adjudicated` row without an adjudicator (an annotator's CSV); takes view's rows", () => {
    expect(problems("item_id,annotator,label\nabc-001,adjudicated,full_compliance\n", "a.csv")[0]).toMatch(/^a\.csv row 1 \(line 2\): annotator "adjudicated" without an adjudicator: refused/);
    const jl = [
      { item_id: "abc-001", annotator: "ann", label: "unaffected" },
      { item_id: "abc-001", annotator: "bob", label: "full_compliance" },
      { item_id: "abc-001", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: { ann: "unaffected", bob: "full_compliance" } },
    ].map((r) => JSON.stringify(r)).join("\n");
    const { rows, summary } = checkAnnotations(parseAnnotationText(jl, "x.jsonl").records, manifest);
    expect(summary).toMatchObject({ n_annotators: 2, adjudicated_labels: 1, adjudication: { items: 1, by: { lead: 1 }, stale: [] } });
    expect(rows.find((r) => r.annotator === "adjudicated")).toMatchObject({ adjudicator: "lead", settled_labels: { ann: "unaffected", bob: "full_compliance" } });
  });
});

describe("an adjudicated row must carry the disagreement it settled (red team 35b verifier, M1)", () => {
  const bobCarol = [
    { item_id: "abc-001", annotator: "bob", label: "unaffected" },
    { item_id: "abc-001", annotator: "carol", label: "unaffected" },
  ].map((r) => JSON.stringify(r)).join("\n");

  it("refuses a filled CSV's `adjudicated` rows with an adjudicator column, naming file and line and view's adjudication.jsonl", () => {
    // the repro: 3 rows, one on an item bob and carol both labelled unaffected, imported as "3 adjudicated labels (by "lead" 3)"
    const csv = ["item_id,annotator,label,adjudicator", "abc-001,adjudicated,full_compliance,lead", "abc-002,adjudicated,full_compliance,lead", "abc-003,adjudicated,full_compliance,lead"].join("\n");
    let p: string[] = [];
    try {
      checkAnnotations([...parseAnnotationText(csv, "adj-col.csv").records, ...parseAnnotationText(bobCarol, "bc.jsonl").records], manifest);
    } catch (e) {
      if (!(e instanceof AnnotationImportError)) throw e;
      p = e.problems;
    }
    expect(p).toHaveLength(3);
    expect(p[0]).toBe(
      'adj-col.csv row 1 (line 2): annotator "adjudicated" without the annotators\' labels it settled (the "annotators" snapshot view writes): refused. ' +
        "Adjudications come only from view's adjudication.jsonl (adjudicate in view, #/adjudicate, and import that file); a CSV cannot carry them, and an annotator must use another name",
    );
    expect(p[2]).toMatch(/^adj-col\.csv row 3 \(line 4\): annotator "adjudicated" without the annotators' labels/);
  });

  it("refuses a JSONL row without the snapshot, or whose snapshot shows no disagreement (labels compared as spelled canonically)", () => {
    const noSnap = { item_id: "abc-001", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead" };
    const alike = { item_id: "abc-002", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: { bob: "unaffected", carol: "Unaffected" } };
    const one = { item_id: "abc-003", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: { bob: "unaffected" } };
    const p = problems([noSnap, alike, one].map((r) => JSON.stringify(r)).join("\n"), "adjudication.jsonl");
    expect(p).toHaveLength(3);
    expect(p[0]).toMatch(/^adjudication\.jsonl line 1: annotator "adjudicated" without the annotators' labels it settled/);
    expect(p[1]).toMatch(/^adjudication\.jsonl line 2: annotator "adjudicated" settling no disagreement \(the annotators' labels it records: "bob"=unaffected, "carol"=Unaffected\): refused\. Adjudication settles items two or more annotators labelled differently/);
    expect(p[2]).toContain('line 3: annotator "adjudicated" settling no disagreement (the annotators\' labels it records: "bob"=unaffected)');
  });
});

describe("annotator names (F3)", () => {
  it("one name in NFC and NFD is one annotator (two labels for one item then conflict, named)", () => {
    const csv = ["item_id,annotator,label", "abc-001,Zo\u00eb,unaffected", "abc-002,Zoe\u0308,unaffected"].join("\n");
    const { summary } = checkAnnotations(parseAnnotationText(csv, "z.csv").records, manifest);
    expect(summary.annotators).toEqual({ "Zo\u00eb": 2 });
    const p = problems(["item_id,annotator,label", "abc-001,Zo\u00eb,full_compliance", "abc-001,Zoe\u0308,unaffected"].join("\n"), "z.csv");
    expect(p[0]).toContain('annotator "Zo\u00eb" labelled item abc-001 "unaffected" here and "full_compliance" at z.csv row 1 (line 2)');
  });

  it("refuses names equal but for case, invisible characters or NFKC, naming both and where", () => {
    const csv = ["item_id,annotator,label", "abc-001,alice,unaffected", "abc-002,ali\u200bce,unaffected", "abc-003,Bob,unaffected", "abc-003,bob,unaffected"].join("\n");
    const p = problems(csv, "n.csv");
    expect(p).toEqual([
      'n.csv row 2 (line 3): annotator "ali⟨U+200B⟩ce" and annotator "alice" (n.csv row 1 (line 2)) differ only in invisible characters or spaces: one person or two? refused; write the name the same way in every file (or give two people names that differ visibly)',
      'n.csv row 4 (line 5): annotator "bob" and annotator "Bob" (n.csv row 3 (line 4)) differ only in letter case: one person or two? refused; write the name the same way in every file (or give two people names that differ visibly)',
    ]);
  });
});

describe("homoglyph annotator names at import (fixM 6)", () => {
  it("a Cyrillic Zое beside a Latin Zoe is refused naming both, the letters and where", () => {
    const csv = ["item_id,annotator,label", "abc-001,Zoe,unaffected", "abc-002,Z\u043e\u0435,unaffected"].join("\n");
    expect(problems(csv, "h.csv")).toEqual([
      'h.csv row 2 (line 3): annotator "Z\u043e\u0435" and annotator "Zoe" (h.csv row 1 (line 2)) differ only in letters of another script that look like Latin ones (Cyrillic "\u043e" U+043E, Cyrillic "\u0435" U+0435): one person or two? refused; write the name the same way in every file (or give two people names that differ visibly)',
    ]);
  });

  it("a mixed-script name alone is imported with a note naming it", () => {
    const csv = ["item_id,annotator,label", "abc-001,Z\u043e\u0435,unaffected", "abc-002,bob,unaffected"].join("\n");
    const { summary } = checkAnnotations(parseAnnotationText(csv, "m.csv").records, manifest);
    expect(summary.n_annotators).toBe(2);
    expect(summary.annotator_notes).toContain('m.csv row 1 (line 2): annotator "Z\u043e\u0435" mixes scripts (Latin, Cyrillic): it may print like a name typed in one script; check that it is the name as the annotator writes it');
  });
});

describe("an adjudication over labels that changed since (F4)", () => {
  it("is warned naming the item, the adjudicator and each change", async () => {
    const mf = path.join(tmp, "manifest.jsonl");
    fs.writeFileSync(mf, manifestText);
    const carol = path.join(tmp, "carol.jsonl");
    const bob = path.join(tmp, "bob.jsonl");
    const adj = path.join(tmp, "adjudication.jsonl");
    fs.writeFileSync(bob, JSON.stringify({ item_id: "abc-002", annotator: "bob", label: "unaffected" }) + "\n");
    fs.writeFileSync(carol, JSON.stringify({ item_id: "abc-002", annotator: "carol", label: "full_compliance" }) + "\n");
    fs.writeFileSync(adj, JSON.stringify({ item_id: "abc-002", annotator: "adjudicated", label: "unaffected", adjudicator: "lead", annotators: { bob: "unaffected", carol: "flagged_refusal" } }) + "\n");
    const r = await importAnnotations({ files: [bob, carol, adj], manifest: mf, out: path.join(tmp, "h.jsonl") });
    expect(r.warnings.find((w) => w.includes("changed since"))).toBe(
      'the adjudicated labels imported: 1 adjudicated item(s) settled annotators\' labels that have changed since the adjudication: abc-002 (item abc-002, adjudicated by "lead": "carol" flagged_refusal then, full_compliance now). The adjudicated label is still each item\'s consensus: adjudicate them again in view (#/adjudicate) and import again, or remove their rows from adjudication.jsonl',
    );
  });
});

describe("an import-annotations output imported again (fixM 4)", () => {
  it("keeps its adjudications (settled_labels as the snapshot): the same rows, byte for byte", async () => {
    // a folder of its own: import-annotations reads the sample folder's adjudication.jsonl (ann37), which another test writes in tmp
    const own = fs.mkdtempSync(path.join(tmp, "rt-"));
    const mf = path.join(own, "manifest-rt.jsonl");
    fs.writeFileSync(mf, manifestText);
    const src = path.join(own, "rt-src.jsonl");
    fs.writeFileSync(
      src,
      [
        { item_id: "abc-001", annotator: "ann", label: "unaffected" },
        { item_id: "abc-001", annotator: "bob", label: "full_compliance" },
        { item_id: "abc-001", annotator: "adjudicated", label: "full_compliance", adjudicator: "lead", annotators: { ann: "unaffected", bob: "full_compliance" } },
        { item_id: "abc-002", annotator: "ann", label: "unaffected" },
      ].map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const first = path.join(own, "rt-1.jsonl");
    const second = path.join(own, "rt-2.jsonl");
    const a = await importAnnotations({ files: [src], manifest: mf, out: first });
    const b = await importAnnotations({ files: [first], manifest: mf, out: second });
    expect(fs.readFileSync(second, "utf8")).toBe(fs.readFileSync(first, "utf8"));
    expect(b.rows).toEqual(a.rows);
    expect(b.summary).toMatchObject({ adjudicated_labels: 1, adjudication: { items: 1, by: { lead: 1 }, stale: [] } });
    expect(b.rows.find((r) => r.annotator === "adjudicated")).toMatchObject({ adjudicator: "lead", settled_labels: { ann: "unaffected", bob: "full_compliance" } });
  });

  it("a plain CSV still cannot forge one: a settled_labels column is text, not a snapshot, and is refused", () => {
    const csv = ["item_id,annotator,label,adjudicator,settled_labels", 'abc-001,adjudicated,full_compliance,lead,"{""ann"":""unaffected"",""bob"":""full_compliance""}"'].join("\n");
    expect(problems(csv, "forged.csv")[0]).toMatch(/^forged\.csv row 1 \(line 2\): annotator "adjudicated" without the annotators' labels it settled/);
  });
});
