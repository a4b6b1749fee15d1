/**
 * `ipi-judge view`'s server on the committee fixture (82 real AgentDojo runs from samples/ plus one hostile
 * trajectory, three judges, a committee, a two-phase sample): the token and Host checks, the CSP on every answer,
 * no file outside the given folders, the paged list and its filters, a trajectory's verified quotes located by the
 * verifier's own `findQuoteSpan`, blinded sample items, and annotation files that `import-annotations` reads.
 * Requires the built page (`npm run build`; `npm test` builds first).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCommitteeFixture, hostileLine, HOSTILE_ID, PAYLOAD, type CommitteeFixture } from "../report/fixture.js";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { annotatorFileName, openView, type ViewServer } from "../../src/view/index.js";
import { CSP } from "../../src/view/server.js";
import { parseAnnotationText, parseManifest, checkAnnotations } from "../../src/sample/import.js";
import { normalize } from "../../src/evidence/normalize.js";
import type { TrajectoryDoc } from "../../src/view/document.js";
import { readTrajectoryIndex } from "../../src/store/run-store.js";

let tmp: string;
let fx: CommitteeFixture;
let study: string;
let server: ViewServer;
let base: string;

/** A raw HTTP request (no URL normalization, any Host header), resolving to status, headers and body. */
function raw(pathAndQuery: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: pathAndQuery, method: opts.method ?? "GET", headers: opts.headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

const auth = (p: string) => `${p}${p.includes("?") ? "&" : "?"}token=${server.token}`;
async function getJson<T>(p: string): Promise<T> {
  const r = await raw(auth(p));
  expect(r.status, r.body).toBe(200);
  return JSON.parse(r.body) as T;
}
async function post<T>(p: string, data: unknown): Promise<{ status: number; json: T }> {
  const r = await raw(auth(p), { method: "POST", headers: { "content-type": "application/json", "x-ipi-view": "1" }, body: JSON.stringify(data) });
  return { status: r.status, json: JSON.parse(r.body) as T };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-"));
  fx = await buildCommitteeFixture(tmp);
  study = path.join(tmp, "study");
  const opened = await openView({ runDir: fx.runDir, sampleDir: study, humanFile: fx.humanFile });
  server = opened.server;
  base = server.url.replace(/\?token=.*/, "");
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("access", () => {
  it("binds 127.0.0.1 and prints a URL with a random token", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
    expect(base).toBe(`http://127.0.0.1:${server.port}/`);
  });

  it("answers 403 to any API request without the token, or with a wrong one", async () => {
    for (const p of ["/api/meta", "/api/list", `/api/item?id=${encodeURIComponent(HOSTILE_ID)}`, "/api/meta?token=wrong", "/nothing"]) {
      const r = await raw(p);
      expect(r.status, p).toBe(403);
      expect(r.body).not.toContain(PAYLOAD.slice(0, 20));
    }
    const wrong = await raw("/api/meta", { headers: { "x-ipi-token": "nope" } });
    expect(wrong.status).toBe(403);
    // the page tells a refused token from the other 403s, and says the view restarted (verifier of red team 35b, L8)
    expect(wrong.headers["x-ipi-refused"]).toBe("token");
  });

  it("takes the token as the x-ipi-token header or ?token=, never from a cookie, and sets none (red team 35b F1)", async () => {
    expect((await raw("/api/meta", { headers: { "x-ipi-token": server.token } })).status).toBe(200);
    expect((await raw(auth("/api/meta"))).status).toBe(200);
    // a cookie an earlier version set is ignored: cookies of 127.0.0.1 reach every port, so no credential is in one
    expect((await raw("/api/meta", { headers: { cookie: `ipi_view_token_${server.port}=${server.token}` } })).status).toBe(403);
    for (const p of ["/", "/assets/app.js", "/api/meta"]) expect((await raw(auth(p))).headers["set-cookie"], p).toBeUndefined();
  });

  it("serves the page, its script and style without the token (they hold no data), with the CSP", async () => {
    for (const p of ["/", "/assets/app.js", "/assets/app.css", "/?token=wrong"]) {
      const r = await raw(p);
      expect(r.status, p).toBe(200);
      expect(r.headers["content-security-policy"], p).toBe(CSP);
      expect(r.body).not.toContain(PAYLOAD.slice(0, 20));
    }
  });

  it("refuses another Host (DNS rebinding) and a POST without its header or JSON body", async () => {
    expect((await raw(auth("/api/meta"), { headers: { host: `evil.example:${server.port}` } })).status).toBe(403);
    const noHeader = await raw(auth("/api/sample/annotate"), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(noHeader.status).toBe(403);
    const form = await raw(auth("/api/sample/annotate"), { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-ipi-view": "1" }, body: "a=1" });
    expect(form.status).toBe(403);
    for (const r of [noHeader, form]) expect(r.headers["x-ipi-refused"]).toBeUndefined(); // not a token refused
  });

  it("sends a strict Content-Security-Policy, nosniff and no referrer on every answer", async () => {
    for (const p of ["/", "/assets/app.js", "/assets/app.css", "/api/meta", "/nothing"]) {
      const r = await raw(auth(p));
      expect(r.headers["content-security-policy"], p).toBe(CSP);
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(r.headers["referrer-policy"]).toBe("no-referrer");
    }
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toContain("unsafe-inline");
    const page = await raw(auth("/"));
    expect(page.body).not.toMatch(/<script>|<script [^>]*>[^<]|\son\w+=/); // the page is static: its one script is a file
  });

  it("reads no file outside the folders it was given (path traversal)", async () => {
    const secret = path.join(tmp, "secret.txt");
    fs.writeFileSync(secret, "TOP-SECRET-CONTENT");
    const tries = [
      "/../secret.txt",
      "/assets/../../secret.txt",
      "/assets/..%2f..%2fsecret.txt",
      "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
      "/assets/%2e%2e/%2e%2e/package.json",
      "/..\\..\\package.json",
      `/api/item?id=${encodeURIComponent("../secret.txt")}`,
      `/api/item?id=${encodeURIComponent(secret)}`,
      `/api/sample/item?item_id=${encodeURIComponent("../../secret.txt")}`,
      `/api/sample/annotations?annotator=${encodeURIComponent("../../secret")}`,
    ];
    for (const p of tries) {
      const r = await raw(auth(p));
      expect([400, 404, 200], p).toContain(r.status);
      expect(r.body, p).not.toContain("TOP-SECRET");
      expect(r.body, p).not.toContain("root:");
      expect(r.body, p).not.toContain('"name": "ipi-judge"');
    }
    // an annotator named like a path gets a file inside annotations/, never elsewhere
    const item = parseManifest(fs.readFileSync(path.join(study, "manifest.jsonl"), "utf8")).rows[0].item_id;
    const r = await post<{ row: { annotator: string } }>("/api/sample/annotate", { annotator: "../../evil", item_id: item, label: "unaffected" });
    expect(r.status).toBe(200);
    expect(fs.existsSync(path.join(tmp, "evil.jsonl"))).toBe(false);
    const files = fs.readdirSync(path.join(study, "annotations"));
    expect(files).toContain(annotatorFileName("../../evil"));
    expect(annotatorFileName("../../evil")).toMatch(/^evil-[0-9a-f]{12}\.jsonl$/);
  });
});

describe("the run", () => {
  it("serves the list a page at a time with its total, and filters it", async () => {
    const meta = await getJson<{ trajectories: number; judges: string[]; committee: { source: string | null }; facets: Record<string, Record<string, number>> }>("/api/meta");
    expect(meta.trajectories).toBe(83);
    expect(meta.judges).toEqual(["lenient-a", "signature", "strict-b"]);
    expect(meta.committee.source).toBe("file");
    const page = await getJson<{ total: number; rows: Array<{ id: string; labels: Record<string, string | null> }> }>("/api/list?offset=10&limit=5");
    expect(page.total).toBe(83);
    expect(page.rows).toHaveLength(5);
    // filter by a judge's label: recompute from the fixture's stored verdicts
    const want = fx.verdicts.filter((v) => v.judge_id === "signature" && v.repeat === 0 && v.label === "full_compliance").length;
    const byLabel = await getJson<{ total: number; rows: Array<{ labels: Record<string, string> }> }>("/api/list?label.signature=full_compliance&limit=500");
    expect(byLabel.total).toBe(want);
    expect(byLabel.rows.every((r) => r.labels.signature === "full_compliance")).toBe(true);
    expect(meta.facets["label.signature"].full_compliance).toBe(want);
    // two judges side by side: the items whose labels differ
    const diff = await getJson<{ total: number; rows: Array<{ diff: [string, string] }> }>("/api/list?diff=j:signature,j:lenient-a&limit=500");
    const sig = new Map(fx.verdicts.filter((v) => v.judge_id === "signature").map((v) => [v.trajectory_id, v.label]));
    const differ = fx.verdicts.filter((v) => v.judge_id === "lenient-a" && v.label && sig.get(v.trajectory_id) && sig.get(v.trajectory_id) !== v.label).length;
    expect(diff.total).toBe(differ);
    expect(differ).toBeGreaterThan(0);
    expect(diff.rows.every((r) => r.diff[0] !== r.diff[1])).toBe(true);
    // text search and the benchmark disagreement filter
    const hostile = await getJson<{ total: number; rows: Array<{ id: string }> }>(`/api/list?q=${encodeURIComponent("hostile-<b>")}`);
    expect(hostile.rows.map((r) => r.id)).toEqual([HOSTILE_ID]);
    const index = await readTrajectoryIndex(fx.runDir);
    const len = fx.verdicts.filter((v) => v.judge_id === "lenient-a" && v.repeat === 0 && v.label);
    const expected = len.filter((v) => {
      const row = index.get(v.trajectory_id)!;
      if (!row.attacked || row.run_error || typeof row.reference?.security !== "boolean") return false;
      return (v.label === "full_compliance") !== row.reference.security;
    }).length;
    const dis = await getJson<{ total: number }>("/api/list?disagree=reference&vs=j:lenient-a");
    expect(dis.total).toBe(expected);
    expect(expected).toBeGreaterThan(0);
    expect((await raw(auth("/api/list?limit=-1"))).status).toBe(400);
    // a rater without its j: prefix was a silent total 0 (new-user pass): a 400 naming the accepted forms
    const bare = await raw(auth("/api/list?disagree=reference&vs=lenient-a"));
    expect(bare.status).toBe(400);
    expect(JSON.parse(bare.body).error).toMatch(/^vs must be j:<judge> \(a judge of run .*"lenient-a", "signature", "strict-b"\), committee, or any \(any judge of run .*\), not "lenient-a"$/);
    expect((await raw(auth("/api/list?status=nonsense"))).status).toBe(400);
  });

  it("locates every verified quote of a trajectory in place, with the verifier's locator", async () => {
    const withQuotes = fx.verdicts.find((v) => v.repeat === 0 && v.findings.some((f) => f.evidence.some((q) => q.verified)))!;
    const item = await getJson<{ doc: TrajectoryDoc; verdicts: unknown[] }>(`/api/item?id=${encodeURIComponent(withQuotes.trajectory_id)}`);
    const located = item.doc.quotes.filter((q) => q.part !== null);
    expect(located.length).toBeGreaterThan(0);
    for (const q of located) {
      const marked = item.doc.parts[q.part!].segments.filter((s) => s.marks?.includes(`q${q.n}`)).map((s) => s.text).join("");
      expect(normalize(marked)).toContain(normalize(q.quote.quote).slice(0, 10));
    }
    for (const q of item.doc.quotes.filter((x) => !x.quote.verified)) expect(q.part).toBeNull();
  });

  it("answers 404 for an unknown trajectory", async () => {
    expect((await raw(auth("/api/item?id=nope"))).status).toBe(404);
  });
});

const manifest = () => parseManifest(fs.readFileSync(path.join(study, "manifest.jsonl"), "utf8"));

describe("the sample", () => {
  it("serves items blinded as the export is: no trajectory id, model, judge or benchmark view", async () => {
    const m = manifest();
    for (const row of m.rows.slice(0, 8)) {
      const r = await raw(auth(`/api/sample/item?item_id=${row.item_id}`));
      expect(r.status).toBe(200);
      expect(r.body).not.toContain(row.trajectory_id);
      for (const leak of ["gpt-4o-", "claude-3", "gemini-1.5", "lenient-a", "strict-b", "toolu_", "important_instructions"]) expect(r.body, `${row.item_id}: ${leak}`).not.toContain(leak);
      const keys = new Set<string>();
      const walk = (x: unknown): void => {
        if (Array.isArray(x)) x.forEach(walk);
        else if (x && typeof x === "object") for (const [k, v] of Object.entries(x)) (keys.add(k), walk(v));
      };
      walk(JSON.parse(r.body).doc);
      for (const k of ["trajectory_id", "agent_model", "agent_family", "suite", "attack", "condition", "reference", "source", "labels", "verdicts", "judge_id", "metadata", "user_task_id", "injection_task_id"]) expect([...keys], k).not.toContain(k);
    }
  });

  it("saves every label at once to the annotator's own file, which import-annotations reads", async () => {
    const m = manifest();
    const ids = m.rows.map((r) => r.item_id);
    expect((await post("/api/sample/annotate", { annotator: "dana", item_id: ids[0], label: "full_compliance" })).status).toBe(200);
    expect((await post("/api/sample/annotate", { annotator: "dana", item_id: ids[1], label: "unaffected", note: "read only" })).status).toBe(200);
    expect((await post("/api/sample/annotate", { annotator: "eli", item_id: ids[0], label: "partial_compliance" })).status).toBe(200);
    // changing a label rewrites the row (import would refuse one annotator's two different labels)
    expect((await post("/api/sample/annotate", { annotator: "dana", item_id: ids[1], label: "not_exposed" })).status).toBe(200);
    const bad = await post<{ error: string }>("/api/sample/annotate", { annotator: "dana", item_id: ids[2], label: "maybe" });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatch(/label.*six scale/);
    const files = ["dana.jsonl", "eli.jsonl"].map((f) => path.join(study, "annotations", f));
    const records = files.flatMap((f) => parseAnnotationText(fs.readFileSync(f, "utf8"), f).records);
    const { rows, summary } = checkAnnotations(records, m);
    expect(summary.labels).toBe(3);
    expect(rows.find((r) => r.annotator === "dana" && r.item_id === ids[1])!.label).toBe("not_exposed");
    expect(rows.find((r) => r.annotator === "eli")!.label).toBe("partial_compliance");
    expect(rows.every((r) => r.trajectory_id === m.rows.find((x) => x.item_id === r.item_id)!.trajectory_id)).toBe(true);
  });

  it("verifies an annotator's evidence like a judge's quote", async () => {
    const m = manifest();
    const id = m.rows[3].item_id;
    const { doc } = await getJson<{ doc: TrajectoryDoc }>(`/api/sample/item?item_id=${id}`);
    const part = doc.parts.findIndex((p) => p.kind === "tool_call");
    expect(part).toBeGreaterThanOrEqual(0);
    const text = doc.parts[part].segments.map((s) => s.text).join("");
    await post("/api/sample/annotate", { annotator: "fay", item_id: id, label: "full_compliance" });
    const ok = await post<{ row: { evidence: Array<{ verified: boolean }> } }>("/api/sample/annotate", { annotator: "fay", item_id: id, evidence: { part, quote: text } }); // the whole call: a call quote must hold its argument values (red team 39 E)
    expect(ok.json.row.evidence[0].verified).toBe(true);
    const no = await post<{ row: { evidence: Array<{ verified: boolean; reason: string }> } }>("/api/sample/annotate", { annotator: "fay", item_id: id, evidence: { part, quote: "words the agent never wrote anywhere" } });
    expect(no.json.row.evidence[1].verified).toBe(false);
    expect(no.json.row.evidence[1].reason).toMatch(/not found/);
    // relabelled not_exposed (no evidence allowed): the kept quotes are checked again and fail
    const re = await post<{ row: { evidence: Array<{ verified: boolean }> } }>("/api/sample/annotate", { annotator: "fay", item_id: id, label: "not_exposed" });
    expect(re.json.row.evidence.every((q) => !q.verified)).toBe(true);
  });

  it("lists the items annotators disagree on and stores the adjudicated label apart", async () => {
    const { items } = await getJson<{ items: Array<{ item_id: string; rows: Array<{ annotator: string; label: string }> }> }>("/api/sample/disagreements");
    const first = manifest().rows[0].item_id;
    const it0 = items.find((i) => i.item_id === first)!;
    expect(it0.rows.map((r) => `${r.annotator}:${r.label}`).sort()).toContain("dana:full_compliance");
    const r = await post<{ row: { label: string } }>("/api/sample/adjudicate", { item_id: first, label: "partial_compliance", adjudicator: "lead" });
    expect(r.status).toBe(200);
    const adj = fs.readFileSync(path.join(study, "adjudication.jsonl"), "utf8");
    expect(JSON.parse(adj.trim()).label).toBe("partial_compliance");
    expect(fs.readFileSync(path.join(study, "annotations", "dana.jsonl"), "utf8")).toContain("full_compliance");
    const parsed = parseAnnotationText(adj, "adjudication.jsonl");
    expect(checkAnnotations(parsed.records, manifest()).rows[0].annotator).toBe("adjudicated");
  });

  it("shows the sample's labels as human labels of the run", async () => {
    const tid = manifest().rows[0].trajectory_id;
    const page = await getJson<{ rows: Array<{ id: string; humans?: Record<string, string> }> }>(`/api/list?q=${encodeURIComponent(tid)}`);
    expect(page.rows.find((r) => r.id === tid)?.humans?.dana).toBe("full_compliance");
  });
});

describe("a trajectory whose source is gone", () => {
  it("says why it cannot be shown and still lists the verdicts' quotes", async () => {
    const dir = path.join(tmp, "gone");
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "one.jsonl");
    fs.writeFileSync(file, hostileLine() + "\n");
    await labelRun({ inputs: [file], run: "gone", labelsDir: dir, judges: [createSignatureJudge()] });
    fs.rmSync(file);
    const b = await openView({ runDir: path.join(dir, "gone") });
    try {
      const r = await fetch(b.server.url.replace("/?", `/api/item?id=${encodeURIComponent(HOSTILE_ID)}&`));
      const item = await r.json();
      expect(item.doc).toBeNull();
      expect(item.error).toMatch(/not found/);
      expect(item.quotes.length).toBeGreaterThan(0);
      expect(item.quotes.every((q: { part: null; why: string }) => q.part === null && q.why === "the trajectory cannot be shown")).toBe(true);
    } finally {
      await b.server.close();
    }
  });
});

describe("another run side by side", () => {
  it("compares a judge of this run with a judge of the other run, by trajectory id", async () => {
    const b = await openView({ runDir: fx.runDir, otherDir: fx.runDir });
    try {
      const get = async (q: string) => (await fetch(`${b.server.url}&${q}`.replace("/?", "/api/list?"))).json();
      const across = await get("diff=j:signature,o:lenient-a&limit=500");
      const within = await get("diff=j:signature,j:lenient-a&limit=500");
      expect(across.total).toBe(within.total);
      expect(across.total).toBeGreaterThan(0);
      const meta = await (await fetch(b.server.url.replace("/?", "/api/meta?"))).json();
      expect(meta.other.judges).toEqual(["lenient-a", "signature", "strict-b"]);
    } finally {
      await b.server.close();
    }
  });
});

describe("blind mode", () => {
  it("serves annotation only: the run's list and items are refused", async () => {
    const b = await openView({ runDir: fx.runDir, sampleDir: study, blind: true });
    try {
      const get = (p: string) => fetch(`${b.server.url.replace(/\?token=.*/, "")}${p.slice(1)}${p.includes("?") ? "&" : "?"}token=${b.server.token}`);
      expect((await get("/api/list")).status).toBe(403);
      expect((await get(`/api/item?id=${encodeURIComponent(HOSTILE_ID)}`)).status).toBe(403);
      const meta = await (await get("/api/meta")).json();
      expect(meta.mode).toBe("blind");
      expect(JSON.stringify(meta)).not.toMatch(/signature|lenient|gpt-4o/);
      expect((await get(`/api/sample/item?item_id=${manifest().rows[0].item_id}`)).status).toBe(200);
      expect((await get("/api/sample/disagreements")).status).toBe(403); // adjudication shows the annotators' labels
      // dana labelled in the full view, so no browser claimed her name: her labels are not shown to whoever types
      // it (test/view/redteam.test.ts: a claimed name gets its labels back on a new server)
      const refused = await get(`/api/sample/annotations?annotator=dana`);
      expect(refused.status).toBe(403);
      expect(await refused.text()).not.toContain("full_compliance");
    } finally {
      await b.server.close();
    }
  });
});
