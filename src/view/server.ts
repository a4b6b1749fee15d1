/**
 * The local web server of `ipi-judge view` (node:http, no framework): the page, its script and style, and a JSON
 * API over the loaded run (src/view/run-data.ts, query.ts, item.ts) and sample (annotations.ts).
 *
 * Safety (trajectory text is attacker-written):
 * - binds 127.0.0.1 by default; every API request needs the random token, as the header `x-ipi-token` (the page
 *   keeps it in sessionStorage, per origin: scheme, host and port) or as `?token=` (a script); without it: 403. No
 *   credential is ever put in a cookie: a browser sends the cookies of 127.0.0.1 to every server on 127.0.0.1,
 *   whatever its port (red team 35b F1: another local server got the token and the annotator's secret and replayed
 *   them); cookies a browser still holds from an earlier version are ignored. The static page, script and style
 *   hold no data and are served without the token. A Host header other than the address it listens on is refused
 *   (403), so a web page cannot reach it through DNS rebinding ({@link hostsFor});
 * - blind mode: an annotator's rows are answered and written only for the browser that claimed the name
 *   (SampleStore.claim; the browser's secret travels in the header `x-ipi-annotator-secret`, kept in the page's
 *   localStorage), and errors carry no trajectory id, model or path;
 * - POST requests also need the header `x-ipi-view: 1` and a JSON body (a cross-site form cannot send either);
 * - the page is static; data comes as JSON and the script puts it in the DOM as text only; every response has a
 *   Content-Security-Policy allowing only the server's own script, style and fetches (no inline script, no
 *   external request), `nosniff`, no referrer, no caching;
 * - a request names trajectories and items by id only; the files read are the run folder, the sample folder and
 *   the source files the run's index records (no path from a request is ever opened).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ViewRun } from "./run-data.js";
import type { OtherRun } from "./other-run.js";
import { pairedSampleLabels } from "./sample-humans.js";
import { checkedListQuery, facets, FIELDS, ListQueryError, listPage } from "./query.js";
import { itemView, withVisibleBidi } from "./item.js";
import { ADJUDICATION_FILE, ANNOTATIONS_DIR, AnnotationInputError, AnnotationWriteError, type AdjudicationRow, type AnnotationRow, type SampleStore } from "./annotations.js";
import { FileChange, fileStamp, folderStamp } from "./file-change.js";
import { itemJudgeNotes, viewJudgeHealth, type ViewJudgeHealth } from "./judge-health.js";
import { restoreBidiControls, showBidiControls, showBidiControlsExactly } from "../format/bidi.js";
import { showInvisibleExactly } from "../format/invisible.js";
import { rubricPrecedenceText } from "../rubric/scale.js";

/** The Content-Security-Policy of every response. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The request header carrying the token (the page's own requests; a script may give `?token=` instead). */
export const TOKEN_HEADER = "x-ipi-token";
/**
 * The response header of the 403 for a missing or wrong token, `token`: the page tells it from the other refusals and
 * says the view was restarted (a new token) or its token changed (./client/dom.ts; red team 35b verifier, L8: an old
 * tab said only "cannot reach the server: HTTP 403").
 */
export const REFUSED_HEADER = "x-ipi-refused";
/** The request header carrying a blind browser's annotator secret, and the response header giving a new one. */
export const SECRET_HEADER = "x-ipi-annotator-secret";
/** Paths served without the token: the static page, its script and style (they hold no data). */
const PUBLIC_PATHS = new Set(["/", "/assets/app.js", "/assets/app.css", "/favicon.ico"]);
const MAX_BODY = 256 * 1024;

/** What the server serves. */
export interface ViewServerOptions {
  run: ViewRun;
  /** The run shown side by side (`--other`): its labels by id, judges, health (./other-run.ts). */
  other?: OtherRun;
  sample?: SampleStore;
  /** Serve only the annotation pages (no judge labels, no run browsing): for annotators. */
  blind?: boolean;
  sourceRoot: string;
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** Fixed token (tests); default 24 random bytes, base64url. */
  token?: string;
  /** More names (host or host:port) the Host header may carry, e.g. a DNS name of a machine bound on 0.0.0.0. */
  allowHosts?: string[];
}

/**
 * The Host headers accepted on `port` (lower case): the loopback names, the bound address, `allow`, and, when
 * bound to every address (0.0.0.0, ::), every address of the machine's interfaces and its host name.
 */
export function hostsFor(host: string, allow: readonly string[]): (port: number) => Set<string> {
  const names = new Set(["127.0.0.1", "localhost", "::1", host]);
  if (host === "0.0.0.0" || host === "::" || host === "") {
    for (const addrs of Object.values(os.networkInterfaces())) for (const a of addrs ?? []) names.add(a.address.replace(/%.*$/, ""));
    names.add(os.hostname());
  }
  const cache = new Map<number, Set<string>>();
  return (port) => {
    let s = cache.get(port);
    if (!s) {
      s = new Set<string>();
      for (const n of names) s.add((n.includes(":") ? `[${n}]:${port}` : `${n}:${port}`).toLowerCase());
      for (const a of allow) {
        const v = a.trim().toLowerCase();
        if (v) s.add(/:\d+$/.test(v) && !v.endsWith("]") ? v : `${v}:${port}`);
      }
      cache.set(port, s);
    }
    return s;
  };
}

/** A started server. */
export interface ViewServer {
  /** The URL to open, with the token. */
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

/** The folder holding the built page assets (`app.js`, `app.css`), from dist/ or, under tests, from src/. */
export function assetsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const tries = [path.resolve(here, "../view/assets"), path.resolve(here, "../../dist/view/assets")];
  const found = tries.find((d) => fs.existsSync(path.join(d, "app.js")));
  if (!found) throw new Error(`the view's page is not built (looked in ${tries.join(", ")}): run npm run build`);
  return found;
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>ipi-judge view</title><link rel="stylesheet" href="/assets/app.css"><script src="/assets/app.js" defer></script></head>
<body><div id="app"><p>Loading…</p></div></body></html>
`;

function sameToken(given: string | null | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A request header's one value (a header given twice is no value). */
function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === "string" ? v : undefined;
}

function send(res: http.ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": type,
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-resource-policy": "same-origin",
    "x-frame-options": "DENY",
    ...extra,
  });
  res.end(body);
}

function json(res: http.ServerResponse, status: number, v: unknown): void {
  send(res, status, JSON.stringify(v), "application/json; charset=utf-8");
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new AnnotationInputError(`request body over ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => {
      let v: unknown;
      try {
        v = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return reject(new AnnotationInputError("the request body is not JSON"));
      }
      if (typeof v !== "object" || v === null || Array.isArray(v)) reject(new AnnotationInputError("the request body must be a JSON object"));
      else resolve(v);
    });
    req.on("error", reject);
  });
}

/** Per run: its judges' health, computed at the first request that needs it (./judge-health.ts). */
const healthOf = new WeakMap<ViewRun | OtherRun, Promise<ViewJudgeHealth>>();

/**
 * The judges' health of a run (the server's, or the other one: `OtherRun.judgeHealth`; none for a run given as plain
 * row objects, in tests).
 */
function judgeHealthOf(run: ViewRun | OtherRun): Promise<ViewJudgeHealth> {
  let h = healthOf.get(run);
  if (!h) {
    const computed = "labelsOf" in run ? run.judgeHealth() : run.refStore ? viewJudgeHealth(run) : Promise.resolve({ banners: [], crashes: new Map() });
    h = computed.catch((e: Error) => {
      // the pages still load, and say that the judges' health is not shown (never a silent absence)
      process.stderr.write(`ipi-judge: view: the judges' health of run ${run.name} could not be computed: ${e?.stack ?? e}\n`);
      return { banners: [], crashes: new Map(), error: `the judges' health of run ${run.name} could not be computed (${e?.message ?? e}): no judge's warnings are shown` };
    });
    healthOf.set(run, h);
  }
  return h;
}

/** The API's answer to GET /api/meta: what the page needs to draw its menus. */
function meta(o: ViewServerOptions, health?: ViewJudgeHealth, otherHealth?: ViewJudgeHealth): unknown {
  const sample = o.sample
    ? {
        scale: o.sample.scale,
        labels: o.sample.labels,
        items: o.sample.itemIds(),
        precedence: rubricPrecedenceText().replace(/^Report every label that applies\.\s*/, ""),
        // annotators stay blind to each other's work in --blind mode
        annotators: o.blind ? [] : o.sample.annotators().map(showBidiControlsExactly),
        ...(o.blind ? { claim_key: claimKey(o.sample.dir) } : {}),
      }
    : null;
  // the sample's warnings name annotator files and runs: an annotator's page gets only their count
  // the adjudication file's rows not shown as consensus are read now: the file changes while the view runs (./adjudication-file.ts)
  const sampleWarnings = o.sample ? [...o.sample.warnings, ...o.sample.adjudicationWarnings()] : [];
  const n = sampleWarnings.length;
  if (o.blind) return { mode: "blind", sample, warnings: n ? [`${n} warning(s) about the sample folder: the terminal running the view lists them`] : [] };
  return {
    mode: "full",
    run: o.run.name,
    trajectories: o.run.rows.length,
    judges: o.run.judges,
    // what label's summary and report say of each judge, shown where its labels are (./judge-health.ts)
    judge_health: (health?.banners ?? []).map(withVisibleBidi),
    committee: o.run.committee,
    fields: FIELDS,
    facets: facets(o.run),
    humans: hasHumans(o.run),
    other: o.other ? { run: o.other.name, judges: o.other.judges, judge_health: (otherHealth?.banners ?? []).map(withVisibleBidi) } : null,
    sample,
    warnings: [...o.run.warnings, ...(o.other?.warnings ?? []), ...sampleWarnings, ...[health?.error, otherHealth?.error].filter((w): w is string => !!w)],
  };
}

/** An annotation row as served: its quotes and their closest text with bidi controls shown as markers. */
function shownRow(r: AnnotationRow): AnnotationRow {
  if (!r.evidence?.length) return r;
  return {
    ...r,
    evidence: r.evidence.map((q) => ({
      ...q,
      quote: showBidiControlsExactly(String(q.quote)),
      ...(q.closest ? { closest: { ...q.closest, text: showBidiControlsExactly(String(q.closest.text)) } } : {}),
    })),
  };
}

/**
 * A row as the adjudication page gets it: as {@link shownRow}, the annotator's name with every invisible character
 * (bidi controls, zero-width characters) as a marker, and the note with bidi controls as markers.
 */
function adjudicationRow(r: AnnotationRow): AnnotationRow {
  // zero-width characters too: `alice` and `ali\u200bce` must not look like one annotator (red team 35b F3)
  const out = { ...shownRow(r), annotator: showInvisibleExactly(String(r.annotator)) };
  if (typeof r.note === "string") out.note = showBidiControlsExactly(r.note);
  return out;
}

/** An adjudicated row as served: its note with bidi controls as markers, its names (adjudicator, the annotators') with every invisible character as one. */
function shownAdjudicated(r: AdjudicationRow): AdjudicationRow {
  const annotators = Object.fromEntries(Object.entries(r.annotators ?? {}).map(([a, l]) => [showInvisibleExactly(a), l]));
  return { ...withVisibleBidi(r), adjudicator: showInvisibleExactly(String(r.adjudicator)), annotators };
}

/** The key the blind page keeps its annotator secret under in localStorage (per sample folder; per port, as localStorage is per origin). */
export const claimKey = (dir: string) => `ipi-view-annotator-secret-${createHash("sha256").update(path.resolve(dir)).digest("hex").slice(0, 12)}`;

/** A request refused with a status and a message for the page. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Blind mode: the annotator a request acts as must be the one this browser claimed (SampleStore.claim), by the
 * secret in its `x-ipi-annotator-secret` header; a new secret is given back in the same response header (the page
 * keeps it in localStorage); throws Refused (403) otherwise. Full mode: no check (the operator's own view).
 */
async function checkAnnotator(o: ViewServerOptions, req: http.IncomingMessage, res: http.ServerResponse, annotator: unknown): Promise<void> {
  if (!o.blind || !o.sample) return;
  const given = header(req, SECRET_HEADER);
  const c = await o.sample.claim(typeof annotator === "string" ? annotator : "", given && /^[A-Za-z0-9_-]{16,128}$/.test(given) ? given : undefined);
  if ("refused" in c) throw new Refused(403, c.refused);
  if (c.secret !== given) res.setHeader(SECRET_HEADER, c.secret);
}

/** The pairing warnings already written, per server (./sample-humans.ts). */
const pairingSaid = new WeakMap<ViewServerOptions, Set<string>>();
/** Per server: the stamps of the sample's label files (annotations/*.jsonl, adjudication.jsonl: ./file-change.ts). */
const sampleFiles = new WeakMap<ViewServerOptions, FileChange>();

/**
 * Copy the sample's annotator labels into the run's rows (the list's human column and filter), and read the
 * `--human` file again, each when its files changed since (fix 39: rows appended by hand, or by another view process,
 * while the view runs are shown at the next request, not after a restart); `force` after a write of this server's own.
 * A label of a trajectory the run now holds with other content than the sample drew is not copied (./sample-humans.ts).
 */
function refreshHumans(o: ViewServerOptions, force = false): void {
  o.run.refreshHumanFile?.();
  if (!o.sample) return;
  const dir = o.sample.dir;
  const watch = sampleFiles.get(o) ?? sampleFiles.set(o, new FileChange(() => `${folderStamp(path.join(dir, ANNOTATIONS_DIR), ".jsonl")}\n${fileStamp(path.join(dir, ADJUDICATION_FILE))}`)).get(o)!;
  if (!watch.changed() && !force) return;
  const said = pairingSaid.get(o) ?? pairingSaid.set(o, new Set()).get(o)!;
  const labels = pairedSampleLabels(o.sample, o.run, said);
  if (o.run.setSampleHumans) return o.run.setSampleHumans(labels); // the layer replaced: a row removed by hand goes too
  for (const [tid, labels1] of labels) {
    if (o.run.addHumans) o.run.addHumans(tid, labels1);
    else {
      // a run given as plain row objects (tests)
      const row = o.run.byId.get(tid);
      if (row) row.humans = { ...(row.humans ?? {}), ...labels1 };
    }
  }
}

/** Whether any row of the run has a human label. */
function hasHumans(run: ViewRun): boolean {
  for (const r of run.rows) if (r.humans && Object.keys(r.humans).length > 0) return true;
  return false;
}

async function api(o: ViewServerOptions, req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
  const p = url.pathname;
  const sp = url.searchParams;
  // the label files may have changed since the last request (written by hand or by another process): read again
  if (!o.blind && req.method === "GET" && (p === "/api/meta" || p === "/api/list" || p === "/api/item")) refreshHumans(o);
  if (req.method === "GET" && p === "/api/meta") {
    if (o.blind) return json(res, 200, meta(o)); // an annotator's page shows no judge
    return json(res, 200, meta(o, await judgeHealthOf(o.run), o.other ? await judgeHealthOf(o.other) : undefined));
  }
  if (p.startsWith("/api/sample")) {
    const s = o.sample;
    if (!s) return json(res, 404, { error: "no sample: start the view with --sample DIR" });
    if (req.method === "GET" && p === "/api/sample/item") return json(res, 200, { item_id: sp.get("item_id"), ...(await s.itemDoc(sp.get("item_id") ?? "")) });
    if (req.method === "GET" && p === "/api/sample/annotations") {
      await checkAnnotator(o, req, res, sp.get("annotator") ?? "");
      return json(res, 200, { rows: s.rowsOf(sp.get("annotator") ?? "").map(shownRow) });
    }
    if (o.blind && (p === "/api/sample/disagreements" || p === "/api/sample/adjudicate")) {
      return json(res, 403, { error: "this view is blind (--blind): adjudication shows the annotators' labels; start the view without --blind to adjudicate" });
    }
    if (req.method === "GET" && p === "/api/sample/disagreements") {
      const ds = s.disagreements().map((d) => ({ ...d, rows: d.rows.map(adjudicationRow), ...(d.adjudicated ? { adjudicated: shownAdjudicated(d.adjudicated) } : {}) }));
      const note = s.adjudicationNote(); // none to disagree: where the labels are read from (new-user report 31, L4)
      return json(res, 200, { items: ds, ...(note ? { note } : {}) });
    }
    if (req.method === "POST" && p === "/api/sample/annotate") {
      const body = (await readBody(req)) as { annotator?: unknown };
      await checkAnnotator(o, req, res, body.annotator);
      const row = await s.change(body as never);
      refreshHumans(o, true);
      return json(res, 200, { row: shownRow(row) });
    }
    if (req.method === "POST" && p === "/api/sample/adjudicate") {
      const row = shownAdjudicated(await s.adjudicate((await readBody(req)) as never));
      refreshHumans(o, true); // the run's pages show the adjudicated consensus at once (new-user report 38 F7)
      return json(res, 200, { row });
    }
    return json(res, 404, { error: "no such API" });
  }
  if (o.blind) return json(res, 403, { error: "this view is blind (--blind): only the annotation pages are served" });
  if (req.method === "GET" && p === "/api/list") return json(res, 200, listPage(o.run, checkedListQuery(sp, o.run, o.other), o.other));
  if (req.method === "GET" && p === "/api/item") {
    const v = await itemView(o.run, sp.get("id") ?? "", o.sourceRoot, o.other);
    if (!v) return json(res, 404, { error: `no trajectory ${JSON.stringify(sp.get("id"))} in run ${o.run.name}` });
    // its verdicts that are errors and the judges that crashed on it, each with its judge's banner (./judge-health.ts)
    const health = await judgeHealthOf(o.run);
    const id = o.run.byId.get(restoreBidiControls(sp.get("id") ?? ""))?.id ?? "";
    // (the verdicts' texts are shown already: only the crashes' raw messages get their markers here)
    const notes = itemJudgeNotes(v.verdicts, health.crashes, id).map((n) => (n.kind === "crash" ? withVisibleBidi(n) : n));
    return json(res, 200, { ...v, judge_notes: notes, judge_health: health.banners.filter((b) => b.lines.length).map(withVisibleBidi) });
  }
  return json(res, 404, { error: "no such API" });
}

/**
 * Start the server.
 * @returns the URL with its token, and `close()`.
 * @throws Error when the page assets are not built, or the port cannot be bound (the listen error).
 */
export async function startViewServer(o: ViewServerOptions): Promise<ViewServer> {
  const token = o.token ?? randomBytes(24).toString("base64url");
  const host = o.host ?? "127.0.0.1";
  const dir = assetsDir();
  const assets: Record<string, { body: Buffer; type: string }> = {
    "/assets/app.js": { body: fs.readFileSync(path.join(dir, "app.js")), type: "text/javascript; charset=utf-8" },
    "/assets/app.css": { body: fs.readFileSync(path.join(dir, "app.css")), type: "text/css; charset=utf-8" },
  };
  refreshHumans(o);
  let port = 0;
  const okHosts = hostsFor(host, o.allowHosts ?? []);
  const server = http.createServer((req, res) => {
    const hostHeader = req.headers.host ?? "";
    if (!okHosts(port).has(hostHeader.toLowerCase())) return send(res, 403, "forbidden: unexpected Host header\n", "text/plain; charset=utf-8");
    let url: URL;
    try {
      url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`);
    } catch {
      return send(res, 400, "bad request\n", "text/plain; charset=utf-8");
    }
    // the page, script and style hold no data: served without the token (the page reads ?token= and keeps it)
    if (req.method === "GET" && PUBLIC_PATHS.has(url.pathname)) {
      if (url.pathname === "/") return send(res, 200, PAGE, "text/html; charset=utf-8");
      if (url.pathname === "/favicon.ico") return send(res, 204, "", "text/plain; charset=utf-8");
      const asset = assets[url.pathname];
      return send(res, 200, asset.body, asset.type);
    }
    // the token: the page's header, or ?token= (a script); a cookie is never read (module docstring)
    if (!sameToken(header(req, TOKEN_HEADER), token) && !sameToken(url.searchParams.get("token"), token)) {
      return send(res, 403, `forbidden: this server needs the token it printed when it started (header ${TOKEN_HEADER}, or ?token=)\n`, "text/plain; charset=utf-8", { [REFUSED_HEADER]: "token" });
    }
    if (req.method === "POST" && (req.headers["x-ipi-view"] !== "1" || !String(req.headers["content-type"] ?? "").startsWith("application/json"))) {
      return send(res, 403, "forbidden: POST needs the x-ipi-view header and a JSON body\n", "text/plain; charset=utf-8");
    }
    if (url.pathname.startsWith("/api/")) {
      api(o, req, res, url).catch((e: Error) => {
        if (e instanceof Refused) json(res, e.status, { error: e.message });
        // only the request's own faults are 400; any other error (a RangeError from deep inside too) is the server's
        else if (e instanceof AnnotationInputError || e instanceof ListQueryError) json(res, 400, { error: e.message });
        else if (e instanceof AnnotationWriteError) {
          // the page gets the reason; the terminal also gets which file and line
          process.stderr.write(`ipi-judge: view: ${e.message}${e.detail ? ` (${e.detail})` : ""}\n`);
          json(res, 500, { error: e.message });
        }
        else {
          // the detail (it may hold a path or a trajectory id) goes to the terminal, not to the page; it names the
          // item asked for, so one failing trajectory can be found while the server goes on serving the others
          const which = ["id", "item_id"].filter((k) => url.searchParams.has(k)).map((k) => ` ${k}=${JSON.stringify(url.searchParams.get(k))}`).join("");
          process.stderr.write(showBidiControls(`ipi-judge: view: ${req.method} ${url.pathname}${which}: ${e?.stack ?? e}`) + "\n");
          json(res, 500, { error: o.blind ? "internal error (the terminal running the view has the detail)" : String(e?.message ?? e) });
        }
      });
      return;
    }
    return send(res, 404, "not found\n", "text/plain; charset=utf-8");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  port = (server.address() as { port: number }).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    token,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
