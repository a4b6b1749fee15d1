/**
 * A running `ipi-judge view` shows label rows written while it runs (fix 39): rows appended by hand (or by another
 * process) to the sample's annotator files or to the `--human` file are in the list and a trajectory's page at the
 * next request, a row removed goes, and the adjudication page reads the `--human` file again. A real server on
 * 127.0.0.1. Requires the built page (`npm run build`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { viewStudy } from "../helpers/view-study.js";
import { openView, type ViewServer } from "../../src/view/index.js";
import { parseManifest, type Manifest } from "../../src/sample/import.js";
import { req } from "../helpers/view-http.js";

const v = viewStudy("ipi-view-live-");

async function open(o: { humanFile?: string; sample?: boolean } = {}): Promise<ViewServer> {
  const s = (await openView({ runDir: v.fx.runDir, ...(o.sample === false ? {} : { sampleDir: v.study }), ...(o.humanFile ? { humanFile: o.humanFile } : {}) })).server;
  expect(s.url.startsWith("http://127.0.0.1:")).toBe(true);
  v.opened.push(s);
  return s;
}
const manifest = (): Manifest => parseManifest(fs.readFileSync(path.join(v.study, "manifest.jsonl"), "utf8"));
const json = async (s: ViewServer, p: string) => JSON.parse((await req(s, p)).body);
async function listHumans(s: ViewServer, tid: string): Promise<Record<string, string> | undefined> {
  const page = await json(s, `/api/list?q=${encodeURIComponent(tid)}`);
  return page.rows.find((r: { id: string }) => r.id === tid)?.humans;
}
const itemHumans = async (s: ViewServer, tid: string) => (await json(s, `/api/item?id=${encodeURIComponent(tid)}`)).row.humans as Record<string, string> | undefined;
const line = (o: unknown) => JSON.stringify(o) + "\n";

describe("label rows written while the view runs (fix 39)", () => {
  it("a row appended by hand to an annotator file is shown at the next request; changed, changed; removed, gone", async () => {
    const s = await open();
    const [a, b] = manifest().rows;
    expect(await listHumans(s, a.trajectory_id)).toBeUndefined();
    const file = path.join(v.study, "annotations", "hand.jsonl");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, line({ item_id: a.item_id, annotator: "hand", label: "unaffected", labelled_at: "2026-01-01T00:00:00Z" }));
    expect(await listHumans(s, a.trajectory_id)).toEqual({ hand: "unaffected" });
    expect(await itemHumans(s, a.trajectory_id)).toEqual({ hand: "unaffected" });
    expect((await json(s, "/api/meta")).humans).toBe(true);
    // a later row of the same item wins, as the files are read everywhere; a second item too
    fs.appendFileSync(file, line({ item_id: a.item_id, annotator: "hand", label: "full_compliance", labelled_at: "2026-01-01T00:01:00Z" }) + line({ item_id: b.item_id, annotator: "hand", label: "not_exposed", labelled_at: "x" }));
    expect(await listHumans(s, a.trajectory_id)).toEqual({ hand: "full_compliance" });
    expect(await itemHumans(s, b.trajectory_id)).toEqual({ hand: "not_exposed" });
    fs.rmSync(file);
    expect(await listHumans(s, a.trajectory_id)).toBeUndefined();
    expect(await itemHumans(s, b.trajectory_id)).toBeUndefined();
  });

  it("a row appended by hand to the --human file is shown at the next request, and adjudicated without a restart", async () => {
    const [a, b] = manifest().rows;
    const file = path.join(v.tmp, "live-human.jsonl");
    const base = (t: typeof a) => ({ trajectory_id: t.trajectory_id, item_id: t.item_id, content_sha256: t.content_sha256 });
    fs.writeFileSync(file, line({ ...base(a), annotator: "carol", label: "unaffected" }));
    const s = await open({ humanFile: file });
    expect(await listHumans(s, a.trajectory_id)).toEqual({ carol: "unaffected" });
    expect(await listHumans(s, b.trajectory_id)).toBeUndefined();
    expect((await json(s, "/api/sample/disagreements")).items.map((d: { item_id: string }) => d.item_id)).not.toContain(b.item_id);
    fs.appendFileSync(file, line({ ...base(b), annotator: "carol", label: "unaffected" }) + line({ ...base(b), annotator: "dave", label: "full_compliance" }));
    expect(await listHumans(s, b.trajectory_id)).toEqual({ carol: "unaffected", dave: "full_compliance" });
    expect(await itemHumans(s, b.trajectory_id)).toEqual({ carol: "unaffected", dave: "full_compliance" });
    // the adjudication page reads the file again: the new disagreement is there
    expect((await json(s, "/api/sample/disagreements")).items.map((d: { item_id: string }) => d.item_id)).toContain(b.item_id);
    // a row that cannot be read now is said, once, and the others are shown
    fs.appendFileSync(file, "{not json\n");
    expect(await listHumans(s, b.trajectory_id)).toEqual({ carol: "unaffected", dave: "full_compliance" });
    const w: string[] = (await json(s, "/api/meta")).warnings.filter((x: string) => x.startsWith("live-human.jsonl"));
    expect(w).toEqual([expect.stringMatching(/^live-human\.jsonl: 1 row\(s\) could not be read \(first: line 4/)]);
  });

  it("without a sample: the --human file alone is read again", async () => {
    const [z, a] = manifest().rows;
    const file = path.join(v.tmp, "alone.csv");
    fs.writeFileSync(file, `trajectory_id,annotator,label\n${z.trajectory_id},erin,unaffected\n`);
    const s = await open({ humanFile: file, sample: false });
    expect(await listHumans(s, a.trajectory_id)).toBeUndefined();
    fs.appendFileSync(file, `${a.trajectory_id},erin,unaffected\n`);
    expect(await listHumans(s, a.trajectory_id)).toEqual({ erin: "unaffected" });
  });
});
