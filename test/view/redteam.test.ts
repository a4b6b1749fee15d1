/**
 * `ipi-judge view` against the red team's findings on the annotation workspace: a blind view answers only the
 * annotator its browser claimed and its errors carry no trajectory id, model or path; two view processes on one
 * sample folder lose no label, names differing by case or very long names get their own bounded file, a label is
 * acknowledged only once written; an item whose source changed since the sample was drawn is not shown as the
 * drawn item; bidi controls are markers everywhere and a selection across one verifies; an untrusted source path
 * never has its content echoed; a wildcard bind accepts the machine's addresses; a `null` body is a 400.
 * Requires the built page (`npm run build`).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";
import { openView, type ViewServer } from "../../src/view/index.js";
import { annotatorFileName, SampleStore } from "../../src/view/annotations.js";
import { loadTrajectory, itemView, withVisibleBidi } from "../../src/view/item.js";
import { loadViewRun, type ViewRun } from "../../src/view/run-data.js";
import { parseManifest } from "../../src/sample/import.js";
import { contentSha256 } from "../../src/run/resume.js";
import { hostsFor } from "../../src/view/server.js";
import { restoreBidiControls, showBidiControls } from "../../src/format/bidi.js";
import { trajectoryParts } from "../../src/serialize/parts.js";
import type { Trajectory } from "../../src/types.js";
import { post, req, secretOf } from "../helpers/view-http.js";

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

/** A copy of the sample folder whose items are re-read through `load` (the run's source otherwise). */
function storeCopy(name: string, load: (tid: string) => Promise<{ trajectory: Trajectory } | { error: string }>, opts: { dropTasks?: boolean } = {}) {
  const dir = path.join(tmp, name);
  fs.cpSync(study, dir, { recursive: true });
  fs.rmSync(path.join(dir, "annotations"), { recursive: true, force: true });
  if (opts.dropTasks) for (const f of ["tasks.jsonl"]) fs.rmSync(path.join(dir, f));
  const logged: string[] = [];
  return { store: new SampleStore(dir, load, (m) => logged.push(m)), dir, logged };
}
const original = async (tid: string) => {
  const r = await loadTrajectory(run, tid, process.cwd());
  if ("error" in r) throw new Error(r.error);
  return r.trajectory;
};

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

describe("a blind view answers only the annotator its browser claimed (finding 2)", () => {
  it("refuses another browser's annotator, and names labelled outside any claim", async () => {
    const full = await open();
    const [a, b] = items();
    expect((await post(full, "/api/sample/annotate", { annotator: "dana", item_id: a.item_id, label: "full_compliance", note: "dana's secret note" })).status).toBe(200);
    const blind = await open({ blind: true });
    // dana labelled in the full view: no browser claimed her, her labels are not shown to whoever types her name
    const danaRows = await req(blind, "/api/sample/annotations?annotator=dana");
    expect(danaRows.status).toBe(403);
    expect(danaRows.body).not.toContain("secret note");
    expect(danaRows.body).not.toContain("full_compliance");
    // zed's browser claims zed and labels
    const first = await req(blind, "/api/sample/annotations?annotator=zed");
    expect(first.status).toBe(200);
    const zed = secretOf(first);
    expect(zed["x-ipi-annotator-secret"]).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(first.headers["set-cookie"]).toBeUndefined(); // no credential in a cookie (red team 35b F1)
    expect((await post(blind, "/api/sample/annotate", { annotator: "zed", item_id: b.item_id, label: "unaffected", note: "zed's note" }, zed)).status).toBe(200);
    // another browser (no secret, or its own) asking for zed: refused, nothing of zed's in the answer
    for (const headers of [{}, secretOf(await req(blind, "/api/sample/annotations?annotator=yan"))]) {
      const other = await req(blind, "/api/sample/annotations?annotator=zed", { headers });
      expect(other.status).toBe(403);
      expect(other.body).not.toContain("zed's note");
      const write = await post(blind, "/api/sample/annotate", { annotator: "zed", item_id: b.item_id, label: "full_compliance" }, headers);
      expect(write.status).toBe(403);
    }
    // zed's browser, on a restarted blind view, gets zed's labels back
    const again = await open({ blind: true });
    const back = await req(again, "/api/sample/annotations?annotator=zed", { headers: zed });
    expect(back.status).toBe(200);
    expect(JSON.parse(back.body).rows.map((r: { note: string }) => r.note)).toEqual(["zed's note"]);
  });

  it("answers errors with no trajectory id or path (over-long name: 400, not a 500 with a path)", async () => {
    fs.writeFileSync(path.join(study, "annotations", "quinn.jsonl"), "not json\n");
    const blind = await open({ blind: true });
    const meta = await req(blind, "/api/meta");
    expect(meta.body).toMatch(/1 warning/);
    expect(meta.body).not.toContain("quinn");
    fs.rmSync(path.join(study, "annotations", "quinn.jsonl"));
    const long = "x".repeat(300);
    const r = await req(blind, `/api/sample/annotations?annotator=${long}`);
    expect(r.status).toBe(400);
    expect(r.body).not.toContain(tmp);
    const w = await post(blind, "/api/sample/annotate", { annotator: long, item_id: items()[0].item_id, label: "unaffected" });
    expect(w.status).toBe(400);
    expect(w.body).not.toContain(tmp);
    expect(w.body).not.toContain(items()[0].trajectory_id);
  });
});

describe("two view processes on one sample folder (finding 3)", () => {
  it("lose no label: each write re-reads the file; disagreements are read from disk", async () => {
    const one = await open();
    const two = await open();
    const ids = items().map((r) => r.item_id);
    expect((await post(one, "/api/sample/annotate", { annotator: "kim", item_id: ids[0], label: "full_compliance" })).status).toBe(200);
    expect((await post(two, "/api/sample/annotate", { annotator: "kim", item_id: ids[1], label: "unaffected" })).status).toBe(200);
    expect((await post(one, "/api/sample/annotate", { annotator: "kim", item_id: ids[2], label: "not_exposed" })).status).toBe(200);
    const lines = fs.readFileSync(path.join(study, "annotations", "kim.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.item_id, l.label])).toEqual([
      [ids[0], "full_compliance"],
      [ids[1], "unaffected"],
      [ids[2], "not_exposed"],
    ]);
    // a second annotator through the other process: the first process sees the disagreement at once
    expect((await post(two, "/api/sample/annotate", { annotator: "lou", item_id: ids[0], label: "unaffected" })).status).toBe(200);
    const d = JSON.parse((await req(one, "/api/sample/disagreements")).body);
    expect(d.items.find((x: { item_id: string }) => x.item_id === ids[0])?.rows.map((r: { annotator: string }) => r.annotator)).toEqual(expect.arrayContaining(["kim", "lou"]));
    const adj = await post(one, "/api/sample/adjudicate", { item_id: ids[0], label: "unaffected", adjudicator: "lead" });
    expect(JSON.parse(adj.body).row.annotators).toMatchObject({ kim: "full_compliance", lou: "unaffected" });
  });

  it("gives names that differ only by case their own file; a new name differing so from an existing one is refused (red team 35b F3)", async () => {
    const s = await open();
    const id = items()[3].item_id;
    expect((await post(s, "/api/sample/annotate", { annotator: "Alice", item_id: id, label: "unaffected" })).status).toBe(200);
    const r = await post(s, "/api/sample/annotate", { annotator: "alice", item_id: id, label: "full_compliance" });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toMatch(/^annotator: "alice" looks like the annotator "Alice" \(they differ only in letter case\)/);
    const fA = annotatorFileName("Alice");
    const fa = annotatorFileName("alice");
    expect(fA.toLowerCase()).not.toBe(fa.toLowerCase());
    expect(JSON.parse((await req(s, "/api/sample/annotations?annotator=Alice")).body).rows[0].label).toBe("unaffected");
    expect(JSON.parse((await req(s, "/api/sample/annotations?annotator=alice")).body).rows).toEqual([]);
  });
});

describe("long names and failed writes (finding 10)", () => {
  it("stores a 50-emoji name in a bounded file", async () => {
    const s = await open();
    const name = "😀".repeat(50);
    const r = await post(s, "/api/sample/annotate", { annotator: name, item_id: items()[0].item_id, label: "unaffected" });
    expect(r.status, r.body).toBe(200);
    const f = annotatorFileName(name);
    expect(Buffer.byteLength(f)).toBeLessThanOrEqual(64);
    expect(fs.readFileSync(path.join(study, "annotations", f), "utf8")).toContain(name);
  });

  it("never acknowledges a label it could not write, and names no path", async () => {
    const s = await open();
    fs.mkdirSync(path.join(study, "annotations", annotatorFileName("blocked")), { recursive: true }); // a folder where the file goes
    const r = await post(s, "/api/sample/annotate", { annotator: "blocked", item_id: items()[0].item_id, label: "unaffected" });
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body).error).toMatch(/not saved/);
    expect(r.body).not.toContain(tmp);
    expect(JSON.parse((await req(s, "/api/sample/annotations?annotator=blocked")).body).rows).toEqual([]);
  });
});

describe("a sample item's text is the one drawn (finding 4)", () => {
  const edit = (t: Trajectory): Trajectory => ({ ...t, messages: t.messages.map((m, i) => (i === 0 ? { ...m, text: "EDITED AFTER THE SAMPLE WAS DRAWN" } : m)) });

  it("shows the sample's own text, not the changed source, and says why", async () => {
    const { store, logged } = storeCopy("s-changed", async (tid) => ({ trajectory: edit(await original(tid)) }));
    const [row] = store.manifest.rows;
    const a = await store.itemDoc(row.item_id);
    expect(a.doc).toBeNull();
    expect(a.error).toMatch(/changed since the sample was drawn/);
    expect(a.drawn_text).toContain(`Item ${row.item_id}`);
    expect(a.drawn_text).not.toContain("EDITED AFTER");
    expect(a.error).not.toContain(row.trajectory_id);
    expect(logged.join("\n")).toContain(row.trajectory_id); // the detail goes to the terminal
    await expect(store.change({ annotator: "x", item_id: row.item_id, label: "unaffected", evidence: { part: 0, quote: "EDITED" } })).rejects.toThrow(/changed since/);
  });

  it("refuses the item when the folder holds no drawn text", async () => {
    const { store } = storeCopy("s-changed-notasks", async (tid) => ({ trajectory: edit(await original(tid)) }), { dropTasks: true });
    const a = await store.itemDoc(store.manifest.rows[0].item_id);
    expect(a).toEqual({ doc: null, error: expect.stringMatching(/cannot be shown: .*changed.*no tasks\.jsonl/) });
  });

  it("serves the unchanged item as before", async () => {
    const { store } = storeCopy("s-same", async (tid) => ({ trajectory: await original(tid) }));
    expect((await store.itemDoc(store.manifest.rows[0].item_id)).doc).not.toBeNull();
  });
});

describe("bidi controls (finding 11)", () => {
  it("verifies a selection made across a marker", async () => {
    const RLO = "\u202e";
    const dir = path.join(tmp, "s-bidi");
    fs.cpSync(study, dir, { recursive: true });
    const mf = path.join(dir, "manifest.jsonl");
    const lines = fs.readFileSync(mf, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    let first = lines.find((l) => l.item_id)!;
    let t0 = await original(first.trajectory_id);
    // an item whose tool result carries its injection verbatim
    for (const l of lines.filter((x) => x.item_id)) {
      const t = await original(l.trajectory_id);
      const inj = Object.values(t.injections ?? {}).filter((x) => x.length > 40);
      if (trajectoryParts(t).some((p) => p.kind === "tool_result" && inj.some((x) => p.text.includes(x)))) {
        first = l;
        t0 = t;
        break;
      }
    }
    const parts = trajectoryParts(t0);
    // a tool result holding injected text verbatim; a control is planted in the middle of the injected text
    const injected = Object.values(t0.injections ?? {}).filter((x) => x.length > 40);
    const pi = parts.findIndex((p) => p.kind === "tool_result" && injected.some((x) => p.text.includes(x)));
    expect(pi).toBeGreaterThanOrEqual(0);
    const p = parts[pi];
    const cut = p.text.indexOf(injected.find((x) => p.text.includes(x))!) + 20;
    const withCtl = (t: Trajectory): Trajectory => ({
      ...t,
      messages: t.messages.map((m, i) => (i === p.message_index ? { ...m, text: m.text.slice(0, cut) + RLO + m.text.slice(cut) } : m)),
    });
    const t1 = withCtl(t0);
    first.content_sha256 = contentSha256(t1);
    fs.writeFileSync(mf, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const store = new SampleStore(dir, async () => ({ trajectory: t1 }), () => {});
    const text = trajectoryParts(t1)[pi].text;
    const at = text.indexOf(RLO);
    expect(at).toBeGreaterThan(0);
    const selected = showBidiControls(text.slice(at - 10, at + 10)); // what the page shows and the annotator selects
    expect(selected).toContain("⟨U+202E⟩");
    await store.change({ annotator: "bea", item_id: first.item_id, label: "unaffected" });
    const row = await store.change({ annotator: "bea", item_id: first.item_id, evidence: { part: pi, quote: selected } });
    expect(row.evidence?.[0].verified, JSON.stringify(row.evidence)).toBe(true);
    expect(restoreBidiControls("a⟨U+202E⟩b⟨U+0041⟩")).toBe(`a${RLO}b⟨U+0041⟩`);
  });

  it("serves verdict text with markers", () => {
    const v = withVisibleBidi({ rationale: `x${"\u2067"}y`, raw_replies: [`r${"\u202e"}`], findings: [{ explanation: "\u200f" }], n: 3 });
    expect(JSON.stringify(v)).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    expect(v.rationale).toBe("x⟨U+2067⟩y");
    expect(v.n).toBe(3);
  });
});

describe("an untrusted source path (finding 12)", () => {
  it("names only that the source could not be read as a trajectory, never its content", async () => {
    const secretFile = path.join(tmp, "passwd");
    fs.writeFileSync(secretFile, "root:x:0:0:SECRETCONTENT:/root:/bin/bash\n");
    const id = run.rows.at(0)!.id;
    const real = run.index.get(id)!;
    const fake = { ...run, index: new Map([[id, { ...real, source: { ...real.source, path: secretFile, line: 1 } }]]) } as ViewRun;
    const r = await loadTrajectory(fake, id, tmp);
    expect("error" in r && r.error).toMatch(/could not be read as a .* trajectory/);
    expect(JSON.stringify(r)).not.toMatch(/root:x|SECRET/);
    const v = await itemView(fake, id, tmp);
    expect(JSON.stringify(v)).not.toMatch(/root:x|SECRET/);
  });
});

describe("binding and bodies (finding 13)", () => {
  it("accepts the machine's addresses when bound to 0.0.0.0, and --allow-host names", async () => {
    const s = await open({ host: "0.0.0.0", allowHosts: ["view.lab"] });
    const addrs = Object.values(os.networkInterfaces()).flatMap((a) => a ?? []).filter((a) => a.family === "IPv4").map((a) => a.address);
    for (const a of addrs) expect((await req(s, "/api/meta", { headers: { host: `${a}:${s.port}` } })).status, a).toBe(200);
    expect((await req(s, "/api/meta", { headers: { host: `${os.hostname()}:${s.port}` } })).status).toBe(200);
    expect((await req(s, "/api/meta", { headers: { host: `view.lab:${s.port}` } })).status).toBe(200);
    expect((await req(s, "/api/meta", { headers: { host: `evil.example:${s.port}` } })).status).toBe(403);
    expect(hostsFor("127.0.0.1", [])(80).has("10.1.2.3:80")).toBe(false);
  });

  it("answers a null or non-object body with 400 and a reason", async () => {
    const s = await open();
    for (const body of ["null", "[]", "3"]) {
      const r = await req(s, "/api/sample/annotate", { method: "POST", body });
      expect(r.status, body).toBe(400);
      expect(JSON.parse(r.body).error).toMatch(/JSON object/);
      const a = await req(s, "/api/sample/adjudicate", { method: "POST", body });
      expect(a.status, body).toBe(400);
    }
  });
});
