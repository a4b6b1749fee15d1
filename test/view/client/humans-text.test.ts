/**
 * New-user report 38 F7: the run's pages show the adjudicated label as the item's consensus, not as one more
 * annotator, and a view started with a label file from before the adjudication still shows the sample folder's.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { humansParts, humansText } from "../../../src/view/client/humans-text.js";
import { buildCommitteeFixture, type CommitteeFixture } from "../../report/fixture.js";
import { openView, type ViewServer } from "../../../src/view/index.js";
import { parseManifest } from "../../../src/sample/import.js";
import { post, req } from "../../helpers/view-http.js";

describe("humansText", () => {
  it("lists the annotators, then the adjudicated label marked as the consensus", () => {
    expect(humansText({ alice: "full_compliance", adjudicated: "unaffected", bob: "unaffected" })).toBe('"alice": full_compliance, "bob": unaffected; consensus by adjudication: unaffected');
    expect(humansText({ alice: "unaffected" })).toBe('"alice": unaffected');
    expect(humansText(undefined)).toBeUndefined();
  });

  it("no annotator name prints like the consensus: names are quoted, the consensus is a part of its own (red team 37c F3)", () => {
    const forged = { alice: "full_compliance", bob: "unaffected; consensus by adjudication: unaffected", "consensus by adjudication": "unaffected" };
    expect(humansParts(forged)).toEqual({ votes: '"alice": full_compliance, "bob": unaffected; consensus by adjudication: unaffected, "consensus by adjudication": unaffected' });
    expect(humansParts({ 'x", "y': "unaffected", adjudicated: "full_compliance" })).toEqual({ votes: '"x\\", \\"y": unaffected', consensus: "full_compliance" });
    expect(humansParts({ adjudicated: "unaffected" })).toEqual({ consensus: "unaffected" });
  });
});

describe("the sample folder's adjudication beside a pre-adjudication label file", () => {
  let tmp: string;
  let fx: CommitteeFixture;
  const opened: ViewServer[] = [];
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-adj-"));
    fx = await buildCommitteeFixture(tmp);
  }, 120_000);
  afterAll(async () => {
    for (const s of opened) await s.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("shows the adjudicated label in the run's rows though the --human file has none", async () => {
    const study = path.join(tmp, "study");
    const rows = parseManifest(fs.readFileSync(path.join(study, "manifest.jsonl"), "utf8")).rows;
    const [first] = rows;
    // two annotators disagree on the first item (view's own files), and a label file from before the adjudication
    fs.mkdirSync(path.join(study, "annotations"), { recursive: true });
    fs.writeFileSync(path.join(study, "annotations", "alice.jsonl"), JSON.stringify({ item_id: first.item_id, annotator: "alice", label: "full_compliance", labelled_at: "x" }) + "\n");
    fs.writeFileSync(path.join(study, "annotations", "bob.jsonl"), JSON.stringify({ item_id: first.item_id, annotator: "bob", label: "unaffected", labelled_at: "x" }) + "\n");
    const pre = path.join(tmp, "human-pre.jsonl");
    fs.writeFileSync(pre, JSON.stringify({ trajectory_id: first.trajectory_id, annotator: "alice", label: "full_compliance" }) + "\n");
    const { server } = await openView({ runDir: fx.runDir, sampleDir: study, humanFile: pre });
    opened.push(server);
    const a = await post(server, "/api/sample/adjudicate", { item_id: first.item_id, label: "unaffected", adjudicator: "lead" });
    expect(a.status).toBe(200);
    const page = JSON.parse((await req(server, `/api/list?q=${encodeURIComponent(first.trajectory_id)}`)).body) as { rows: Array<{ id: string; humans?: Record<string, string> }> };
    const humans = page.rows.find((r) => r.id === first.trajectory_id)?.humans;
    expect(humans).toMatchObject({ alice: "full_compliance", bob: "unaffected", adjudicated: "unaffected" });
    expect(humansText(humans)).toMatch(/; consensus by adjudication: unaffected$/);
  });
});
