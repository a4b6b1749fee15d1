/**
 * The LLM path of `label`, stage by stage, in one process and without a network (issue 26, session 35): the first N
 * AgentDojo runs in `label`'s walk order go through each stage of the online path one stage at a time (all N items
 * through a stage before the next), with the functions `label` calls, so what each stage costs per item can be
 * counted apart:
 *   read+parse (file bytes, strict UTF-8 decode, `JSON.parse`), convert+validate (`convertAgentDojo`), surfaces
 *   (instructing descriptions, `decideSurfaces`), index row + content hash (`indexRow`), render (`LlmJudge.begin`:
 *   `renderForJudge`, the messages), request body (`request`, `chatRequestBody`, `estimateTokens`, the body bytes
 *   the client sends), reply parse (the HTTP body's `JSON.parse`, usage, `classifyCompletion`, `parseReply`), quote
 *   verification (the evidence context, `decide`, `quoteCheck`), verdict build (`buildVerdict`, cost), store append
 *   (`addTrajectory`, `addVerdict`). Replies are the bench server's (`./server.ts` `benchReply`), built untimed.
 *
 * Not in it: the transport and the `openai` client (the SDK floor, `./openai-loop.mjs`), the run loop (p-limit,
 * promises, progress), the walk. A check at the end runs `LlmJudge.step` on a few items and compares its verdict
 * with the one built stage by stage (but `created_at`).
 *
 * Usage: `node --import tsx bench/llm-stages.ts RUNS_DIR N [--json]` (ms of CPU per item per stage, process.cpuUsage:
 * the whole process, V8's compiler and GC threads included). Environment: `IPI_STAGES_BATCH=B` runs the stages on B
 * items at a time (what `label` holds in flight) instead of all N; `IPI_STAGES_PROFILE=DIR` writes a CPU profile per
 * stage (`./llm-stages-prof.mjs DIR` adds them up); `IPI_STAGES_HEAP=1` (with `--expose-gc`) prints what each
 * stage's outputs hold; `IPI_STAGES_SPLIT=1` times the index rows apart from the verdicts; `IPI_STAGES_NOTURN=1`
 * stores without a turn of the event loop between records (the journals then write once, at the end).
 *
 * Counted (load-independent): tsx's loader hides the marker from valgrind, so bundle first, then
 *   npx esbuild bench/llm-stages.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=bench/.stages-build/llm-stages.mjs
 *   valgrind --tool=callgrind --dump-before=getegid --callgrind-out-file=OUT-N node --predictable --hash-seed=1 \
 *     --random-seed=1 bench/.stages-build/llm-stages.mjs RUNS_DIR N
 * for N = 1000 and 5000: every stage boundary calls `process.getegid()`, before which callgrind dumps (Node calls
 * `getegid` at start-up too; the stages are the last dumps). `node bench/llm-stages-count.mjs OUT-1000 1000
 * OUT-5000 5000` gives instructions per item per stage (the difference drops the warm-up of the first 1,000), and
 * `python3 bench/llm-stages-fns.py OUT-1000 1000 OUT-5000 5000` the same by native function (JIT code is `???`).
 */
import fs from "node:fs";
import inspector from "node:inspector";
import os from "node:os";
import path from "node:path";
import { readdirSync } from "node:fs";
import { inputFiles, fallbackIdRoot, convertAgentDojo } from "../dist/ingest/index.js";
import { readJsonBytes } from "../dist/ingest/read-file.js";
import { decodeUtf8Strict, parseJson } from "../dist/ingest/text.js";
import { resolvedPath } from "../dist/ingest/resolved.js";
import { withInstructingDescriptions } from "../dist/serialize/instructing.js";
import { decideSurfaces } from "../dist/serialize/surface.js";
import { needsSibling } from "../dist/run/siblings.js";
import { TrajectoryPreparer } from "../dist/run/prepare.js";
import { indexRow } from "../dist/run/resume.js";
import { createOpenAIJudge } from "../dist/judges/llm-judge.js";
import { loadJudgesConfig } from "../dist/config/judges.js";
import { chatRequestBody, estimateTokens, addUsage, readUsage } from "../dist/providers/send.js";
import { bodyJsonEncoder } from "../dist/providers/body-json.js";
import { classifyCompletion, lazyPromptSize } from "../dist/providers/classify.js";
import { chosenChoice } from "../dist/providers/choice.js";
import { parseReply } from "../dist/judges/parse.js";
import { decide } from "../dist/verdict/decide.js";
import { quoteCheck } from "../dist/verdict/first-reply.js";
import { buildVerdict } from "../dist/verdict/record.js";
import { RunStore } from "../dist/store/run-store.js";
import { benchReply, completionBody } from "./server.js";

const [runsDir, nArg] = process.argv.slice(2);
const N = Number(nArg ?? 1000);
const JSON_OUT = process.argv.includes("--json");
const MAX = 64 * 1024 * 1024;

/**
 * `IPI_STAGES_PROFILE=DIR`: a CPU profile of each stage (`DIR/<n>.cpuprofile`), started and stopped at the marks
 * (the inspector of this thread answers synchronously).
 */
const PROFILE_DIR = process.env.IPI_STAGES_PROFILE;
const session = PROFILE_DIR ? new inspector.Session() : undefined;
const post = (method: string, params?: object): any => {
  let out: any;
  session!.post(method, params ?? {}, (err, r) => {
    if (err) throw err;
    out = r;
  });
  return out;
};
if (session) {
  session.connect();
  post("Profiler.enable");
  post("Profiler.setSamplingInterval", { interval: 50 });
  fs.mkdirSync(PROFILE_DIR!, { recursive: true });
}

/** `IPI_STAGES_HEAP=1` (with `--expose-gc`): the heap after a full collection at each mark (what the stages' outputs hold). */
const HEAP = process.env.IPI_STAGES_HEAP === "1";
const heap: { stage: string; mb: number }[] = [];

/** A stage boundary: a CPU reading, and the marker callgrind dumps before (`--dump-before=getegid`). */
const cpu: { stage: string; ms: number }[] = [];
let last = process.cpuUsage();
function mark(stage: string): void {
  const now = process.cpuUsage();
  cpu.push({ stage, ms: (now.user - last.user + now.system - last.system) / 1000 });
  if (session && stage !== "setup") {
    const { profile } = post("Profiler.stop");
    fs.writeFileSync(path.join(PROFILE_DIR!, `${cpu.length - 1}-${stage.replace(/[^a-z]+/g, "_")}.cpuprofile`), JSON.stringify(profile));
  }
  process.getegid?.();
  if (session) post("Profiler.start");
  if (HEAP && globalThis.gc) {
    globalThis.gc();
    heap.push({ stage, mb: process.memoryUsage().heapUsed / 1048576 });
  }
  last = process.cpuUsage();
}

// --- untimed set-up: the file list in walk order, the folder listings, the judge, the store ---
const files: string[] = [];
for await (const f of inputFiles([runsDir])) {
  if ("error" in f) continue;
  if (!f.file.endsWith(".json")) continue;
  files.push(f.file);
  if (files.length >= N) break;
}
const idRoot = await fallbackIdRoot([runsDir]);
const listings = new Map<string, string[]>();
const siblingsOf = (file: string): string[] => {
  const parent = path.dirname(path.dirname(path.dirname(path.dirname(path.dirname(resolvedPath(file))))));
  let names = listings.get(parent);
  if (!names) {
    names = readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name);
    listings.set(parent, names);
  }
  return names;
};
const sources = files.map((file) => ({ path: file, root: idRoot, siblings: siblingsOf(file) }));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "llm-stages-"));
const cfgFile = path.join(tmp, "judges.json");
fs.writeFileSync(cfgFile, JSON.stringify({ judges: [{ id: "bench", model: "bench-model", base_url: "http://127.0.0.1:9/v1", family: "openai", concurrency: 64 }] }));
const cfg = loadJudgesConfig(cfgFile, { checkKeys: false });
const judge = createOpenAIJudge(cfg.judges[0], { retries: cfg.retries, minQuoteChars: cfg.min_quote_chars }) as any;
const store = await RunStore.open(tmp, "stages", { inputs: [runsDir] });
const preparer = new TrajectoryPreparer([runsDir], {});
const bodyJson = bodyJsonEncoder();
const ctx = { repeat: 0, budgetChars: undefined, minQuoteChars: undefined };

mark("setup");

/** `IPI_STAGES_BATCH=B`: the stages run on B items at a time (what `label` holds in flight), each stage on the batch
 * before the next; default all N at once. CPU per stage is summed over the batches. */
const BATCH = Number(process.env.IPI_STAGES_BATCH ?? N) || N;
let keep: { ts: any[]; results: any[]; verdicts: any[] } | undefined;
let external = 0;
let retries = 0;
let bodyBytes = 0;
const turn = () => new Promise<void>((ok) => setImmediate(ok));
for (let lo = 0; lo < files.length; lo += BATCH) {
  const fb = files.slice(lo, lo + BATCH);
  const sb = sources.slice(lo, lo + BATCH);
  // 1. read + parse
  const parsed: unknown[] = new Array(fb.length);
  for (let i = 0; i < fb.length; i++) {
    const r = readJsonBytes(fb[i], MAX);
    if ("error" in r) throw new Error(r.error.message);
    const d = decodeUtf8Strict(r.bytes);
    if (!d.ok) throw new Error("utf8");
    const p = parseJson(d.text);
    if (!p.ok) throw new Error(p.message);
    parsed[i] = p.value;
  }
  mark("read+parse");

  // 2. convert + validate
  const raws: any[] = new Array(fb.length);
  for (let i = 0; i < fb.length; i++) {
    const r = convertAgentDojo(parsed[i], sb[i]);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    raws[i] = r.trajectory;
  }
  parsed.length = 0;
  mark("convert+validate");

  // 3. surfaces (as TrajectoryPreparer.prepare does, without the index row)
  const ts: any[] = new Array(fb.length);
  const surfaces: any[] = new Array(fb.length);
  for (let i = 0; i < raws.length; i++) {
    const t = withInstructingDescriptions(raws[i]);
    if (needsSibling(t)) {
      external++;
      const p = await preparer.prepare(raws[i]);
      ts[i] = p.trajectory;
      surfaces[i] = p.row.surfaces ?? {};
      continue;
    }
    const sd = decideSurfaces(t);
    surfaces[i] = sd.surfaces;
    ts[i] = Object.keys(sd.surfaces).length > 0 ? { ...t, surfaces: sd.surfaces } : t;
  }
  mark("surfaces");

  // 4. index row + content hash
  const rows: any[] = new Array(fb.length);
  for (let i = 0; i < ts.length; i++) rows[i] = indexRow(ts[i], surfaces[i]);
  mark("index row+hash");

  // 5. render (begin: renderForJudge, messages)
  const convs: any[] = new Array(fb.length);
  for (let i = 0; i < ts.length; i++) convs[i] = judge.begin(ts[i], ctx);
  mark("render");

  // 6. request body (the request, its body, the token estimate, the bytes the client sends)
  const bodies: any[] = new Array(fb.length);
  for (let i = 0; i < convs.length; i++) {
    const req = judge.request(convs[i]);
    const body = chatRequestBody(req, req.max_tokens, "max_tokens", req.adapt);
    estimateTokens({ ...req, max_tokens: req.max_tokens });
    bodyBytes += bodyJson(body).length;
    bodies[i] = body;
  }
  mark("request body");

  // untimed: the bench server's reply bodies
  const replies: string[] = convs.map((c) => {
    const content = benchReply(c.messages[1].content);
    const promptTokens = Math.max(1, Math.ceil(c.messages.reduce((a: number, m: { content: string }) => a + String(m.content ?? "").length, 0) / 4));
    return completionBody(content, promptTokens);
  });
  mark("(replies, untimed)");

  // 7. reply parse + schema check
  const results: any[] = new Array(fb.length);
  const replyOk: any[] = new Array(fb.length);
  const isComplete = (c: string) => judge.isComplete(c);
  for (let i = 0; i < replies.length; i++) {
    const completion = JSON.parse(replies[i]);
    const usage = { prompt_tokens: 0, completion_tokens: 0 };
    addUsage(usage, readUsage(completion.usage));
    const cls = classifyCompletion(completion, { isComplete, ...lazyPromptSize(bodies[i]) });
    chosenChoice(completion);
    if (cls.kind !== "reply") throw new Error(cls.kind);
    results[i] = { outcome: { kind: "reply", content: cls.content, finishReason: cls.finishReason }, requests: 1, usage, raw: [cls.content], maxTokens: undefined };
    const p = parseReply(cls.content, judge.config.output_mode);
    if (!p.ok) throw new Error(p.message);
    replyOk[i] = p;
  }
  mark("reply parse");

  // 8. quote verification (the evidence context on first use, decide, the first reply's check)
  const decisions: any[] = new Array(fb.length);
  for (let i = 0; i < convs.length; i++) {
    const conv = convs[i];
    const d = decide(replyOk[i].reply, conv.evCtx);
    conv.last = { decision: d, rationale: replyOk[i].reply.rationale };
    conv.firstReply ??= quoteCheck(d.findings);
    if (d.needsRetry) retries++;
    decisions[i] = d;
  }
  mark("quote verification");

  // 9. verdict build (as JudgeConversations.step's "ok" verdict, then LlmJudge's cost, then the runner's two fields)
  const conversations = judge.conversations;
  const verdicts: any[] = new Array(fb.length);
  for (let i = 0; i < convs.length; i++) {
    const conv = convs[i];
    const res = results[i];
    conv.attempts += res.requests;
    addUsage(conv.usage, res.usage);
    conv.raw.push(...res.raw);
    conv.maxTokens = res.maxTokens;
    const s = conversations.s;
    let v = buildVerdict({
      trajectory: conv.trajectory,
      judge: s.identity,
      repeat: conv.repeat,
      status: "ok",
      decision: decisions[i],
      attempts: conv.attempts,
      usage: conv.usage,
      raw_replies: conv.raw,
      redact: s.redact,
      truncated: conv.truncated,
      error: undefined,
      rationale: replyOk[i].reply.rationale,
      now: s.now?.(),
      nonce: conv.nonce,
      first_reply: conv.firstReply,
      feedback_turns: conv.round,
    });
    v = judge.withCost(conv, v);
    v.judge_config_sha256 = "0".repeat(64);
    v.content_sha256 = rows[i].content_sha256;
    verdicts[i] = v;
  }
  mark("verdict build");

  // 10. store append: the index rows as the reading loop adds them (a turn of the event loop every READ_TURN = 8 files,
  // where the journal writes what the turn appended), then each verdict in a turn of its own (a reply each)
  for (let i = 0; i < rows.length; i++) {
    store.addTrajectory(rows[i]);
    if (i % 8 === 7 && !process.env.IPI_STAGES_NOTURN) await turn();
  }
  if (process.env.IPI_STAGES_SPLIT) mark("store: rows");
  for (let i = 0; i < verdicts.length; i++) {
    store.addVerdict(verdicts[i]);
    if (!process.env.IPI_STAGES_NOTURN) await turn();
  }
  mark("store append");
  keep ??= { ts, results, verdicts };
}


// check: LlmJudge.step on fresh conversations gives the same verdicts (but created_at)
let same = 0;
const CHECK = Math.min(50, keep!.ts.length);
for (let i = 0; i < CHECK; i++) {
  const conv = judge.begin(keep!.ts[i], ctx);
  const out = judge.step(conv, keep!.results[i]);
  if (!out.done) continue;
  const a = { ...out.verdict, created_at: 0, nonce: 0, judge_config_sha256: keep!.verdicts[i].judge_config_sha256, content_sha256: keep!.verdicts[i].content_sha256 };
  const b = { ...keep!.verdicts[i], created_at: 0, nonce: 0 };
  if (JSON.stringify(a) === JSON.stringify(b)) same++;
}
await store.close();
if (process.env.IPI_STAGES_KEEP) console.log("store files:", fs.readdirSync(path.join(tmp, "stages")).map((f) => `${f} ${fs.statSync(path.join(tmp, "stages", f)).size}`).join(", "));
fs.rmSync(tmp, { recursive: true, force: true });

const byStage = new Map<string, number>();
for (const c of cpu) if (c.stage !== "setup" && !c.stage.startsWith("(")) byStage.set(c.stage, (byStage.get(c.stage) ?? 0) + c.ms);
const stages = [...byStage].map(([stage, ms]) => ({ stage, ms }));
const total = stages.reduce((a, c) => a + c.ms, 0);
if (HEAP) for (let i = 1; i < heap.length; i++) console.log(`heap after ${heap[i].stage}: ${heap[i].mb.toFixed(1)} MB (${(((heap[i].mb - heap[i - 1].mb) * 1048576) / files.length / 1024).toFixed(1)} KB/item more)`);
if (JSON_OUT) console.log(JSON.stringify({ n: files.length, external, retries, same, check: CHECK, bodyBytes, stages }));
else {
  console.log(`${files.length} items (${external} needing siblings, ${retries} replies needing a retry; step check ${same}/${CHECK} equal); body ${(bodyBytes / files.length / 1024).toFixed(1)} KB/item`);
  for (const c of stages) console.log(`${c.stage.padEnd(20)} ${(c.ms / files.length).toFixed(4)} ms/item  ${((100 * c.ms) / total).toFixed(1)}%`);
  console.log(`${"total".padEnd(20)} ${(total / files.length).toFixed(4)} ms/item`);
}
