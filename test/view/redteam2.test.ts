/**
 * `ipi-judge view` against the second red team's findings: labels saved under a file name of an earlier version of
 * the view (`annotations/Alice.jsonl`) stay the annotator's (blind mode refuses the unclaimed name, a write goes to
 * that file, never a second one); a line the annotation rewrite cannot carry over makes the write refused, nothing
 * lost, the terminal told; bidi controls in list rows, the item's row and id, and adjudication names and notes are
 * shown as markers. Requires the built page (`npm run build`).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";
import { openView, type ViewServer } from "../../src/view/index.js";
import { annotatorFileName } from "../../src/view/annotations.js";
import { loadViewRun, type ViewRun } from "../../src/view/run-data.js";
import { parseManifest } from "../../src/sample/import.js";
import { startViewServer } from "../../src/view/server.js";
import { trajectoryDoc } from "../../src/view/document.js";
import type { Trajectory } from "../../src/types.js";
import { post, req } from "../helpers/view-http.js";

let tmp: string;
let fx: CommitteeFixture;
let study: string;
let run: ViewRun;
const opened: ViewServer[] = [];


async function open(o: Partial<Parameters<typeof openView>[0]> = {}): Promise<ViewServer> {
  const { server } = await openView({ runDir: fx.runDir, sampleDir: study, ...o });
  opened.push(server);
  return server;
}
const items = () => parseManifest(fs.readFileSync(path.join(study, "manifest.jsonl"), "utf8")).rows;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-rt-"));
  fx = await buildCommitteeFixture(tmp);
  study = path.join(tmp, "study");
  run = await loadViewRun(fx.runDir);
}, 120_000);

afterAll(async () => {
  for (const s of opened) await s.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});


/** A copy of the sample folder for one test (its annotations emptied). */
function sampleCopy(name: string): string {
  const dir = path.join(tmp, name);
  fs.cpSync(study, dir, { recursive: true });
  fs.rmSync(path.join(dir, "annotations"), { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, "annotations"));
  return dir;
}
const legacyRows = (ids: string[]) => ids.map((id) => JSON.stringify({ item_id: id, annotator: "Alice", label: "full_compliance", note: "SECRET-NOTE-OF-ALICE", labelled_at: "2026-11-01T00:00:00Z" })).join("\n") + "\n";

describe("labels in a file named by an earlier version of the view (finding 1)", () => {
  it("blind: an unclaimed name whose rows live in a legacy-named file is refused, nothing of hers is answered or written", async () => {
    const dir = sampleCopy("legacy-blind");
    const ids = items().map((r) => r.item_id);
    fs.writeFileSync(path.join(dir, "annotations", "Alice.jsonl"), legacyRows(ids.slice(0, 2)));
    const blind = await open({ sampleDir: dir, blind: true });
    const get = await req(blind, "/api/sample/annotations?annotator=Alice");
    expect(get.status).toBe(403);
    expect(get.body).not.toContain("SECRET-NOTE");
    const write = await post(blind, "/api/sample/annotate", { annotator: "Alice", item_id: ids[3], label: "unaffected" });
    expect(write.status).toBe(403);
    expect(fs.readdirSync(path.join(dir, "annotations")).filter((f) => f.endsWith(".jsonl"))).toEqual(["Alice.jsonl"]);
  });

  it("full view: a write for her goes to her legacy file, never a second file; rows in two files are refused", async () => {
    const dir = sampleCopy("legacy-full");
    const ids = items().map((r) => r.item_id);
    const legacy = path.join(dir, "annotations", "Alice.jsonl");
    fs.writeFileSync(legacy, legacyRows(ids.slice(0, 2)));
    const s = await open({ sampleDir: dir });
    const w = await post(s, "/api/sample/annotate", { annotator: "Alice", item_id: ids[3], label: "unaffected" });
    expect(w.status, w.body).toBe(200);
    expect(fs.readdirSync(path.join(dir, "annotations")).filter((f) => f.endsWith(".jsonl"))).toEqual(["Alice.jsonl"]);
    const rows = fs.readFileSync(legacy, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.item_id, r.label])).toEqual([
      [ids[0], "full_compliance"],
      [ids[1], "full_compliance"],
      [ids[3], "unaffected"],
    ]);
    // her rows already split over two files (the old bug): refused, nothing changed
    const second = path.join(dir, "annotations", annotatorFileName("Alice"));
    fs.writeFileSync(second, JSON.stringify({ item_id: ids[4], annotator: "Alice", label: "unaffected", labelled_at: "x" }) + "\n");
    const before = [fs.readFileSync(legacy, "utf8"), fs.readFileSync(second, "utf8")];
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const r = await post(s, "/api/sample/annotate", { annotator: "Alice", item_id: ids[0], label: "unaffected" });
      expect(r.status).toBe(500);
      expect(JSON.parse(r.body).error).toMatch(/^not saved: .*2 files/);
      expect(err.mock.calls.map((c) => String(c[0])).join("")).toContain("Alice.jsonl");
    } finally {
      err.mockRestore();
    }
    expect([fs.readFileSync(legacy, "utf8"), fs.readFileSync(second, "utf8")]).toEqual(before);
  });
});

describe("a line the annotation rewrite cannot carry over (finding 5)", () => {
  it("refuses the write (500 not saved), keeps the file byte for byte and says so on the terminal", async () => {
    const dir = sampleCopy("truncated");
    const ids = items().map((r) => r.item_id);
    const file = path.join(dir, "annotations", "bob.jsonl");
    const text = JSON.stringify({ item_id: ids[0], annotator: "bob", label: "unaffected", labelled_at: "x" }) + '\n{"item_id":"' + ids[1] + '","annotator":"bob","lab\n';
    fs.writeFileSync(file, text);
    const s = await open({ sampleDir: dir });
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const r = await post(s, "/api/sample/annotate", { annotator: "bob", item_id: ids[2], label: "full_compliance" });
      expect(r.status).toBe(500);
      expect(JSON.parse(r.body).error).toMatch(/^not saved: line 2 .*not JSON/);
      expect(err.mock.calls.map((c) => String(c[0])).join("")).toMatch(/bob\.jsonl line 2: not JSON/);
    } finally {
      err.mockRestore();
    }
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    // the adjudication file too: a bad line there refuses the adjudication
    const adj = path.join(dir, "adjudication.jsonl");
    fs.writeFileSync(adj, "{truncated\n");
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const a = await post(s, "/api/sample/adjudicate", { item_id: ids[0], label: "unaffected", adjudicator: "lead" });
      expect(a.status).toBe(500);
    } finally {
      spy.mockRestore();
    }
    expect(fs.readFileSync(adj, "utf8")).toBe("{truncated\n");
  });
});

const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
describe("bidi controls in the list, the item's row and id, and on the adjudication page (finding 4)", () => {
  it("serves them as markers; the shown id opens the item and a shown facet value filters", async () => {
    const r0 = run.rows.at(0)!;
    const bad = { ...r0, id: `${r0.id}\u202e`, agent_model: "gpt\u2067x", condition: "cond\u202eition", attack: "att\u200fack", humans: { "ann\u202e": "unaffected" } };
    const fake = { ...run, rows: [bad], byId: new Map([[bad.id, bad]]), index: new Map([[bad.id, { ...run.index.get(r0.id)!, id: bad.id }]]) } as ViewRun;
    const s = await startViewServer({ run: fake, sourceRoot: process.cwd() });
    opened.push(s);
    const list = await req(s, "/api/list");
    expect(list.status).toBe(200);
    expect(list.body).not.toMatch(BIDI);
    const row = JSON.parse(list.body).rows[0];
    expect(row.id).toBe(`${r0.id}⟨U+202E⟩`);
    expect(row.condition).toBe("cond⟨U+202E⟩ition");
    expect(row.humans).toEqual({ "ann⟨U+202E⟩": "unaffected" });
    const meta = await req(s, "/api/meta");
    expect(meta.body).not.toMatch(BIDI);
    // the page filters by the shown facet value and links by the shown id
    const filtered = JSON.parse((await req(s, `/api/list?condition=${encodeURIComponent("cond⟨U+202E⟩ition")}`)).body);
    expect(filtered.total).toBe(1);
    const item = await req(s, `/api/item?id=${encodeURIComponent(row.id)}`);
    expect(item.status).toBe(200);
    expect(item.body).not.toMatch(BIDI);
    expect(JSON.parse(item.body).row.attack).toBe("att⟨U+200F⟩ack");
    // the document's id too
    const t = { id: "t\u202eid", messages: [{ role: "user", content: "hi" }] } as unknown as Trajectory;
    expect(trajectoryDoc(t).id).toBe("t⟨U+202E⟩id");
  });

  it("shows annotator names and notes with markers on the adjudication page", async () => {
    const dir = sampleCopy("bidi-adj");
    const id = items()[0].item_id;
    const s = await open({ sampleDir: dir });
    expect((await post(s, "/api/sample/annotate", { annotator: "ev\u202eil", item_id: id, label: "unaffected", note: "no\u2067te" })).status).toBe(200);
    expect((await post(s, "/api/sample/annotate", { annotator: "kay", item_id: id, label: "full_compliance" })).status).toBe(200);
    const adj = await post(s, "/api/sample/adjudicate", { item_id: id, label: "unaffected", adjudicator: "le\u202ead", note: "n\u202e" });
    expect(adj.status).toBe(200);
    expect(adj.body).not.toMatch(BIDI);
    const d = await req(s, "/api/sample/disagreements");
    expect(d.body).not.toMatch(BIDI);
    const it0 = JSON.parse(d.body).items[0];
    expect(it0.rows.map((r: { annotator: string }) => r.annotator)).toContain("ev⟨U+202E⟩il");
    expect(it0.rows.find((r: { annotator: string }) => r.annotator === "ev⟨U+202E⟩il").note).toBe("no⟨U+2067⟩te");
    expect(it0.adjudicated.annotators).toMatchObject({ "ev⟨U+202E⟩il": "unaffected" });
    // stored as typed
    expect(fs.readFileSync(path.join(dir, "annotations", annotatorFileName("ev\u202eil")), "utf8")).toContain("\u202e");
  });
});
