/**
 * `label --dry-run`'s cost range against a real label run (issue 23): a loopback server counts the prompt tokens of
 * what it received with the model's tokenizer (messages plus the response_format schema, as OpenAI bills), answers
 * short verdicts (~50-60 output tokens) and misquotes on 29% of first replies (a feedback turn each). Prints the dry
 * run before anything is judged (floor, ceiling), after half is judged (observed), and the run's real cost
 * recomputed from the server's own counts.
 *
 *   node --import tsx bench/dry-run-range.ts [runs folder, default ../shared/corpus/agentdojo/runs] [limit, default 516]
 *
 * Measured 2026-12-02 on the shared corpus (516 runs, gpt-4o-mini prices): floor $0.340, ceiling $1.77, the run $0.456
 * (677 requests, 1.31 per verdict); after 258 judged, observed $0.252 for a rest that cost $0.246; the dry run's
 * first-request prompt tokens (schema included) 1.0013x what the server counted.
 */
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { countPromptTokens } from "../src/providers/tokens.js";
import { benchReply } from "./server.js";
import { createOpenAIJudge } from "../src/judges/llm-judge.js";
import { labelRun } from "../src/run/label.js";
import { dryRun } from "../src/run/dry-run.js";

const CORPUS = process.argv[2] ?? path.resolve(import.meta.dirname, "../../shared/corpus/agentdojo/runs");
const LIMIT = Number(process.argv[3] ?? 516);
let n = 0;
let firsts = 0;
let billedPrompt = 0;
let billedOut = 0;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const user = body.messages.find((m: any) => m.role === "user").content;
    const msgs = [...body.messages, ...(body.response_format ? [{ role: "system", content: JSON.stringify(body.response_format) }] : [])];
    const pt = countPromptTokens(msgs, "o200k_base") - (body.response_format ? 4 : 0);
    let content = benchReply(user);
    // a deterministic 29% of first requests misquote (hash of the nonce-free user text length)
    if (body.messages.length === 2 && firsts++ % 100 < 29)
      content = JSON.stringify({ findings: [{ bucket: "full_compliance", evidence: [{ message_index: 1, tool_call_index: null, quote: "a sentence that is nowhere in the run" }], explanation: "x" }], label: "full_compliance", rationale: "r" });
    n++;
    const out = Math.ceil(content.length / 4);
    billedPrompt += pt;
    billedOut += out;
    const payload = JSON.stringify({ id: "x", object: "chat.completion", created: 1, model: "gpt-4o-mini", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }], usage: { prompt_tokens: pt, completion_tokens: out, total_tokens: pt + out } });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(payload);
  });
});
await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${(server.address() as any).port}/v1`;
const price = { input_per_mtok: 0.15, cached_input_per_mtok: 0.15, output_per_mtok: 0.6 };
const judges = [createOpenAIJudge({ id: "g", model: "gpt-4o-mini", family: "openai", base_url: url, price, concurrency: 8 } as any, { retries: 2, minQuoteChars: 12 })];
const labelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "measure-dry-"));
const opts = { inputs: [CORPUS], run: "m", labelsDir, judges, limit: LIMIT };
const dr = await dryRun(opts as any);
const j = dr.judges[0];
console.log("DRY", JSON.stringify({ requests: j.requests, prompt_tokens: j.prompt_tokens, schema: j.schema_tokens_per_request, range: j.cost_range, assumed_out: j.assumed_output_tokens_per_request }));
const half = await labelRun({ ...opts, limit: Math.floor(LIMIT / 2) } as any);
const drHalf = await dryRun(opts as any);
console.log("DRY-half", JSON.stringify({ requests: drHalf.judges[0].requests, range: drHalf.judges[0].cost_range, observed: drHalf.judges[0].observed }));
const beforeRest = fs.readFileSync(path.join(labelsDir, "m", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).reduce((a, v) => a + (v.cost_usd ?? 0), 0);
const res = await labelRun(opts as any);
void half;
const vs = fs.readFileSync(path.join(labelsDir, "m", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
const cost = vs.reduce((a, v) => a + (v.cost_usd ?? 0), 0);
const attempts = vs.reduce((a, v) => a + v.attempts, 0);
const firstPrompt = j.prompt_tokens + j.requests * j.schema_tokens_per_request;
console.log("REST", JSON.stringify({ rest_cost_usd: cost - beforeRest }));
console.log("RUN", JSON.stringify({ verdicts: vs.length, requests: n, attempts, cost_usd: cost, billed_prompt: billedPrompt, billed_out: billedOut, recomputed_usd: (billedPrompt * 0.15 + billedOut * 0.6) / 1e6, first_prompt_dry: firstPrompt }));
// a second dry run over twice the items, half judged: observed turns per verdict
const dr2 = await dryRun({ ...opts, limit: LIMIT } as any);
console.log("DRY-after (nothing left)", JSON.stringify(dr2.judges[0].cost_range), JSON.stringify(dr2.judges[0].observed));
server.close();
fs.rmSync(labelsDir, { recursive: true, force: true });
void res;
