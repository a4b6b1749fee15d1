/**
 * `ipi-judge view` against red team 35b: annotator names entered in NFC, a new name that looks like an existing one
 * refused naming both (F3), zero-width characters shown as markers on the adjudication page (F3), and no
 * adjudication of an item nobody disagrees on (F4). The cookies (F1) are in ./server.test.ts, ./redteam.test.ts and
 * the browser test. Requires the built page (`npm run build`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { viewStudy } from "../helpers/view-study.js";
import { openView, type ViewServer } from "../../src/view/index.js";
import { parseManifest } from "../../src/sample/import.js";
import { post, req, secretOf } from "../helpers/view-http.js";

const v = viewStudy("ipi-view-rt35-");

async function open(o: { blind?: boolean } = {}): Promise<ViewServer> {
  const s = (await openView({ runDir: v.fx.runDir, sampleDir: v.study, ...o })).server;
  v.opened.push(s);
  return s;
}
const items = () => parseManifest(fs.readFileSync(path.join(v.study, "manifest.jsonl"), "utf8")).rows.map((r) => r.item_id);
const NFC = "Zo\u00eb";
const NFD = "Zoe\u0308";

describe("annotator names (F3)", () => {
  it("one name in NFC and NFD is one annotator, in one file", async () => {
    const s = await open();
    const [a, b] = items();
    expect((await post(s, "/api/sample/annotate", { annotator: NFD, item_id: a, label: "unaffected" })).status).toBe(200);
    expect((await post(s, "/api/sample/annotate", { annotator: NFC, item_id: b, label: "unaffected" })).status).toBe(200);
    const rows = JSON.parse((await req(s, `/api/sample/annotations?annotator=${encodeURIComponent(NFD)}`)).body).rows;
    expect(rows.map((r: { annotator: string }) => r.annotator)).toEqual([NFC, NFC]);
    const meta = JSON.parse((await req(s, "/api/meta")).body);
    expect(meta.sample.annotators.filter((n: string) => n.normalize("NFC") === NFC)).toEqual([NFC]);
  });

  it("a new name equal to an existing one but for a zero-width character or case is refused, naming both (full view)", async () => {
    const s = await open();
    const [a] = items();
    expect((await post(s, "/api/sample/annotate", { annotator: "alice", item_id: a, label: "unaffected" })).status).toBe(200);
    const r = await post(s, "/api/sample/annotate", { annotator: "ali\u200bce", item_id: a, label: "full_compliance" });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toBe(
      'annotator: "ali⟨U+200B⟩ce" looks like the annotator "alice" (they differ only in invisible characters or spaces): one person or two? Use the existing name exactly, or a name that differs visibly',
    );
    expect(fs.readdirSync(path.join(v.study, "annotations")).filter((f) => f.startsWith("ali"))).toEqual(["alice.jsonl"]);
  });

  it("a new name that is an existing one with Cyrillic look-alike letters is refused, naming the letters (fixM 6)", async () => {
    const s = await open();
    const [a] = items();
    expect((await post(s, "/api/sample/annotate", { annotator: "alice", item_id: a, label: "unaffected" })).status).toBe(200);
    const r = await post(s, "/api/sample/annotate", { annotator: "\u0430lice", item_id: a, label: "full_compliance" });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toBe(
      'annotator: "\u0430lice" looks like the annotator "alice" (they differ only in letters of another script that look like Latin ones (Cyrillic "\u0430" U+0430)): one person or two? Use the existing name exactly, or a name that differs visibly',
    );
  });

  it.each([
    ["a\u01c0ice", "alice", 'characters that look like others (Unicode TR39 confusables: Latin "\u01c0" U+01C0 reads as "l")'],
    ["\u0435\u0475\u0435", "eve", 'letters of another script that look like Latin ones (Cyrillic "\u0435" U+0435, Cyrillic "\u0475" U+0475)'],
    ["\u1d0bim", "kim", 'small capitals (Latin "\u1d0b" U+1D0B)'],
    ["Ian", "lan", 'characters that look like others (Unicode TR39 confusables: Latin "I" U+0049 reads as "l")'],
  ])("a new name %s beside %s (TR39 skeleton, fix 39) is refused, naming both and the code points", async (name, existing, how) => {
    const s = await open();
    const [a] = items();
    expect((await post(s, "/api/sample/annotate", { annotator: existing, item_id: a, label: "unaffected" })).status).toBe(200);
    const r = await post(s, "/api/sample/annotate", { annotator: name, item_id: a, label: "full_compliance" });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toBe(
      `annotator: ${JSON.stringify(name)} looks like the annotator ${JSON.stringify(existing)} (they differ only in ${how}): one person or two? Use the existing name exactly, or a name that differs visibly`,
    );
  });

  it("a blind view refuses the look-alike name without naming the other annotator", async () => {
    const s = await open({ blind: true });
    const r = await req(s, "/api/sample/annotations?annotator=ALICE");
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toMatch(/^annotator: "ALICE" looks like another annotator's name \(they differ only in letter case\)/);
    expect(r.body).not.toContain('"alice"');
    // a name of its own is claimed as before (the secret in a response header, no cookie)
    const ok = await req(s, "/api/sample/annotations?annotator=bruno");
    expect(ok.status).toBe(200);
    expect(secretOf(ok)["x-ipi-annotator-secret"]).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

describe("adjudication (F3 markers, F4 refusal)", () => {
  it("refuses an item without a disagreement (one annotator, or all alike), with the reason", async () => {
    const s = await open();
    const ids = items();
    const one = await post(s, "/api/sample/adjudicate", { item_id: ids[5], label: "full_compliance", adjudicator: "lead" });
    expect(one.status).toBe(400);
    expect(JSON.parse(one.body).error).toMatch(/^item_id: item \S+ has no disagreement to adjudicate \(no annotator labelled it\)/);
    for (const who of ["hank", "ivy"]) expect((await post(s, "/api/sample/annotate", { annotator: who, item_id: ids[6], label: "unaffected" })).status).toBe(200);
    const same = await post(s, "/api/sample/adjudicate", { item_id: ids[6], label: "full_compliance", adjudicator: "lead" });
    expect(same.status).toBe(400);
    expect(JSON.parse(same.body).error).toContain("its labels: hank=unaffected, ivy=unaffected");
    expect(fs.existsSync(path.join(v.study, "adjudication.jsonl"))).toBe(false);
  });

  it("adjudicates a disagreement; the page gets zero-width characters in names as markers", async () => {
    const s = await open();
    const id = items()[7];
    expect((await post(s, "/api/sample/annotate", { annotator: "hank", item_id: id, label: "unaffected" })).status).toBe(200);
    expect((await post(s, "/api/sample/annotate", { annotator: "jo\u200bel", item_id: id, label: "full_compliance" })).status).toBe(200);
    const r = await post(s, "/api/sample/adjudicate", { item_id: id, label: "full_compliance", adjudicator: "le\u200dad" });
    expect(r.status, r.body).toBe(200);
    const page = JSON.parse((await req(s, "/api/sample/disagreements")).body).items.find((d: { item_id: string }) => d.item_id === id);
    expect(page.rows.map((x: { annotator: string }) => x.annotator)).toEqual(["hank", "jo⟨U+200B⟩el"]);
    expect(page.adjudicated.adjudicator).toBe("le⟨U+200D⟩ad");
    expect(Object.keys(page.adjudicated.annotators)).toEqual(["hank", "jo⟨U+200B⟩el"]);
  });
});
