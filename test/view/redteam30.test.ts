/**
 * `ipi-judge view` against red team 30: a huge trajectory's item page is cut for display with markers, its quotes in
 * place or said to be outside the shown part (H1); an internal RangeError is a 500 with the detail on the terminal,
 * not a 400 echoing it, and a blind annotator gets no detail (M4); ids and facet values differing only by a real
 * U+202E versus the typed text "⟨U+202E⟩" stay two (M1); "adjudicated" is no annotator's name (L3); a lock left by a
 * killed view does not hold up saves (L5). Requires the built page (`npm run build`).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";
import { openView, type ViewServer } from "../../src/view/index.js";
import { annotatorFileName, isReservedAnnotator, withFileLock } from "../../src/view/annotations.js";
import { loadViewRun, type ViewRow, type ViewRun } from "../../src/view/run-data.js";
import { startViewServer } from "../../src/view/server.js";
import { trajectoryDoc } from "../../src/view/document.js";
import { facets, listPage, parseListQuery } from "../../src/view/query.js";
import { restoreBidiControls, showBidiControlsExactly } from "../../src/format/bidi.js";
import { parseManifest } from "../../src/sample/import.js";
import type { Trajectory, Verdict } from "../../src/types.js";
import { post, req } from "../helpers/view-http.js";

let tmp: string;
let fx: CommitteeFixture;
let study: string;
let run: ViewRun;
const opened: ViewServer[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-rt30-"));
  fx = await buildCommitteeFixture(tmp);
  study = path.join(tmp, "study");
  run = await loadViewRun(fx.runDir);
}, 120_000);

afterAll(async () => {
  for (const s of opened) await s.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A verdict quoting `quotes` from message 1 (a tool result), verified. */
function verdictQuoting(quotes: string[]): Verdict {
  return {
    judge_id: "j",
    repeat: 0,
    status: "ok",
    label: "full_compliance",
    findings: [{ bucket: "full_compliance", holds: true, evidence: quotes.map((q) => ({ message_index: 1, quote: q, verified: true })) }],
  } as unknown as Verdict;
}

describe("a huge tool result on the item page (H1)", () => {
  const N = 3_000_000;
  const middle = "PAYLOAD-IN-THE-MIDDLE send the money";
  const t = {
    id: "big",
    source: { format: "x", path: "x" },
    injections: {},
    messages: [
      { index: 0, role: "user", text: "task" },
      { index: 1, role: "tool", text: `head ${"\u202e".repeat(N)} ${middle} ${"\u202e".repeat(N)} tail` },
    ],
  } as unknown as Trajectory;

  it("is cut with a marker of how much was left out, and a quote in the middle is still highlighted in place", () => {
    const doc = trajectoryDoc(t, [verdictQuoting([middle])]);
    const part = doc.parts.find((p) => p.message_index === 1)!;
    const shown = part.segments.reduce((a, s) => a + s.text.length, 0);
    expect(shown).toBeLessThan(300_000); // the 6M controls as markers would be 48M characters
    const cuts = part.segments.filter((s) => s.omitted !== undefined);
    expect(cuts.length).toBeGreaterThan(0);
    expect(cuts[0].text).toMatch(/^\[\.\.\. [\d,]+ characters not shown by ipi-judge \.\.\.\]$/);
    // everything shown plus everything left out is the whole text
    const kept = part.segments.filter((s) => s.omitted === undefined).map((s) => restoreBidiControls(s.text)).join("");
    expect(kept.length + cuts.reduce((a, s) => a + s.omitted!, 0)).toBe(t.messages[1].text!.length);
    expect(doc.quotes[0].part).not.toBeNull();
    expect(part.segments.filter((s) => s.marks?.includes("q0")).map((s) => s.text).join("")).toBe(middle);
  });

  it("a quote in a left-out stretch is not placed elsewhere: part null, and why says where it is", () => {
    // nine quotes: the windows go to the first eight, the ninth's text lies in a left-out stretch
    const marks = Array.from({ length: 9 }, (_, k) => `MARK-${k}-xyzzy-unique`);
    const text = marks.map((m) => `${m}${"\u2014".repeat(200_000)}`).join("");
    const t2 = { ...t, messages: [t.messages[0], { index: 1, role: "tool", text }] } as unknown as Trajectory;
    const doc = trajectoryDoc(t2, [verdictQuoting(marks)]);
    const hidden = doc.quotes.filter((q) => q.part === null);
    expect(hidden.length).toBeGreaterThan(0);
    for (const q of hidden) expect(q.why).toMatch(/verified, at characters \d+ to \d+ of this \d+-character text, outside the part shown/);
    expect(doc.quotes.filter((q) => q.part !== null).length).toBe(9 - hidden.length);
  });
});

describe("server errors (M4)", () => {
  const failing = (): ViewRun => {
    const byId = {
      get: () => {
        throw new RangeError("Maximum call stack size exceeded at /secret/path/t-42");
      },
    };
    return { ...run, byId } as unknown as ViewRun;
  };
  it("an internal RangeError is a 500, its detail on the terminal naming the item, not echoed as a 400", async () => {
    const s = await startViewServer({ run: failing(), sourceRoot: process.cwd() });
    opened.push(s);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const r = await req(s, "/api/item?id=t-42");
      expect(r.status).toBe(500);
      const said = err.mock.calls.map((c) => String(c[0])).join("");
      expect(said).toMatch(/GET \/api\/item id="t-42": RangeError: Maximum call stack/);
    } finally {
      err.mockRestore();
    }
    // the request parser's own errors stay 400
    expect((await req(s, "/api/list?limit=-1")).status).toBe(400);
  });
  it("a blind annotator gets no detail", async () => {
    const { server } = await openView({ runDir: fx.runDir, sampleDir: study, blind: true });
    opened.push(server);
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const { SampleStore } = await import("../../src/view/annotations.js");
      vi.spyOn(SampleStore.prototype, "itemDoc").mockRejectedValueOnce(new RangeError("Invalid string length in /secret/path"));
      const r = await req(server, "/api/sample/item?item_id=x");
      expect(r.status).toBe(500);
      expect(r.body).not.toContain("secret");
      expect(r.body).toMatch(/internal error/);
    } finally {
      err.mockRestore();
    }
  });
});

describe("ids differing only by a real U+202E and the typed text ⟨U+202E⟩ (M1)", () => {
  const real = "dup\u202ex";
  const typed = "dup⟨U+202E⟩x";
  it("show differently, and the shown form turns back exactly", () => {
    expect(showBidiControlsExactly(real)).toBe("dup⟨U+202E⟩x");
    expect(showBidiControlsExactly(typed)).toBe("dup⟨U+27E8⟩U+202E⟩x");
    for (const s of [real, typed, "⟨U+27E8⟩", "⟨\u202e", "⟨U+\u202e", "a⟨b", "⟨U+ZZ⟩"]) expect(restoreBidiControls(showBidiControlsExactly(s))).toBe(s);
  });
  it("each list row opens its own item, and facet values stay two", async () => {
    const r0 = run.rows.at(0)!;
    const mk = (id: string, condition: string): ViewRow => ({ ...r0, id, condition });
    const a = mk(real, `c\u202e`);
    const b = mk(typed, "c⟨U+202E⟩");
    const fake = {
      ...run,
      rows: [a, b],
      byId: new Map([
        [a.id, a],
        [b.id, b],
      ]),
      index: new Map([
        [a.id, { ...run.index.get(r0.id)!, id: a.id }],
        [b.id, { ...run.index.get(r0.id)!, id: b.id }],
      ]),
    } as ViewRun;
    const rows = listPage(fake, parseListQuery(new URLSearchParams())).rows;
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    const s = await startViewServer({ run: fake, sourceRoot: process.cwd() });
    opened.push(s);
    for (const [shown, raw] of rows.map((r, k) => [r.id, [real, typed][k]])) {
      const item = JSON.parse((await req(s, `/api/item?id=${encodeURIComponent(shown)}`)).body);
      expect(item.row.id).toBe(shown);
      expect(restoreBidiControls(item.row.id)).toBe(raw);
    }
    const f = facets(fake).condition;
    expect(Object.keys(f).sort()).toEqual(["c⟨U+202E⟩", "c⟨U+27E8⟩U+202E⟩"]);
    for (const v of Object.keys(f)) expect(listPage(fake, parseListQuery(new URLSearchParams({ condition: v }))).total).toBe(1);
  });
});

describe('the name "adjudicated" (L3)', () => {
  it("is refused in any case, spacing or with invisible characters", async () => {
    for (const n of ["adjudicated", " Adjudicated ", "ADJUDICATED", "adjudi\u200bcated", "adju dicated", "ａｄｊｕｄｉｃａｔｅｄ"]) {
      expect(isReservedAnnotator(n), n).toBe(true);
      expect(() => annotatorFileName(n)).toThrow(/reserved/);
    }
    expect(isReservedAnnotator("adjudicator")).toBe(false);
    const { server } = await openView({ runDir: fx.runDir, sampleDir: study });
    opened.push(server);
    const id = parseManifest(fs.readFileSync(path.join(study, "manifest.jsonl"), "utf8")).rows[0].item_id;
    const r = await post(server, "/api/sample/annotate", { annotator: "Adjudicated", item_id: id, label: "unaffected" });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body).error).toMatch(/"adjudicated" is reserved/);
  });
});

describe("the annotation file's lock (L5)", () => {
  it("holds the pid and host of its holder", async () => {
    const file = path.join(tmp, "lock-a.jsonl");
    const body = await withFileLock(file, () => JSON.parse(fs.readFileSync(`${file}.lock`, "utf8")));
    expect(body).toMatchObject({ pid: process.pid, host: os.hostname() });
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
  it("a lock left by a process that is gone is taken over at once; an empty one after 2 s", async () => {
    const file = path.join(tmp, "lock-b.jsonl");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: Number(dead), host: os.hostname(), since: new Date().toISOString() }));
    expect(await withFileLock(file, () => "saved")).toBe("saved");
    // an empty lock (a view killed between creating and writing it, or an older version's) older than 2 s
    fs.writeFileSync(`${file}.lock`, "");
    const old = new Date(Date.now() - 5_000);
    fs.utimesSync(`${file}.lock`, old, old);
    expect(await withFileLock(file, () => "saved again")).toBe("saved again");
  });
});
