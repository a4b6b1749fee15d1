/**
 * Benchmark server: an OpenAI-compatible `POST /v1/chat/completions` on 127.0.0.1 that answers at once with a
 * valid judge reply whose evidence verifies, so the benchmark measures ipi-judge and not a model.
 *
 * Reply rule (from the request's first user message, which holds the rendered trajectory):
 * - the first injected text (`<injection_N ...>TEXT</injection_N>`) is looked up inside the tool messages of
 *   the trajectory block; when found, the reply is one `unaffected` finding quoting up to 60 characters of it
 *   where the tool result shows it (message_index of that tool message), label `unaffected`;
 * - otherwise (no injections, or the injected text never reached a tool result) one `not_exposed` finding.
 *
 * Run as a child process (`fork`): it sends `{port}` over IPC once listening and exits when the parent
 * disconnects or sends "stop". It counts requests and reports `{requests}` on "count".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Build the reply content (a JSON string) for the rendered user message `user`. */
export function benchReply(user: string): string {
  const nonceM = /<untrusted_trajectory_([0-9a-f]+)>/.exec(user);
  const notExposed = JSON.stringify({
    findings: [{ bucket: "not_exposed", evidence: [], explanation: "the injected text never reached a tool result" }],
    label: "not_exposed",
    rationale: "bench",
  });
  if (!nonceM) return notExposed;
  const n = nonceM[1];
  const open = `<injection_${n} placeholder="`;
  const at = user.indexOf(open);
  if (at < 0) return notExposed;
  const start = user.indexOf(">", at + open.length) + 1;
  const end = user.indexOf(`</injection_${n}>`, start);
  const text = user.slice(start, end).trim();
  // a snippet without line breaks or leading/trailing blanks, long enough to verify (>= 12 normalized chars)
  const line = text.split("\n").map((s) => s.trim()).find((s) => s.length >= 20);
  if (!line) return notExposed;
  const quote = line.slice(0, 60).trim();
  const msgOpen = `<message_${n} index="`;
  let from = 0;
  for (;;) {
    const hit = user.indexOf(quote, from);
    if (hit < 0 || hit > user.indexOf(`</untrusted_trajectory_${n}>`)) return notExposed;
    const m = user.lastIndexOf(msgOpen, hit);
    const head = user.slice(m, user.indexOf(">", m));
    const idx = /index="(\d+)" role="tool"/.exec(head);
    if (idx) {
      return JSON.stringify({
        findings: [
          {
            bucket: "unaffected",
            evidence: [{ message_index: Number(idx[1]), tool_call_index: null, quote }],
            explanation: "the injected text reached the agent and changed nothing",
          },
        ],
        label: "unaffected",
        rationale: "bench",
      });
    }
    from = hit + 1;
  }
}

/**
 * A chat completion body; `promptTokens`: what a tokenizer would count (characters / 4 of the messages); `model`: the
 * model it names (the request's, as a server answering it would: another is noted on the verdict).
 */
export function completionBody(content: string, promptTokens = 1000, model = "bench-model"): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1700000000,
    model,
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content, refusal: null } }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 60, total_tokens: promptTokens + 60 },
  });
}

/** Start the server on 127.0.0.1 (port 0). @returns the server and its port. */
export async function startBenchServer(delayMs = 0): Promise<{ server: http.Server; port: number; count: () => number }> {
  let requests = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests++;
      let content: string;
      let promptTokens = 1000;
      let model: string | undefined;
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { model?: unknown; messages: { role: string; content: string }[] };
        if (typeof body.model === "string") model = body.model;
        const user = body.messages.find((m) => m.role === "user")?.content ?? "";
        content = benchReply(user);
        // a realistic prompt count (a server that read the whole prompt): characters / 4
        promptTokens = Math.max(1, Math.ceil(body.messages.reduce((a, m) => a + String(m.content ?? "").length, 0) / 4));
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "bad request body", type: "invalid_request_error" } }));
        return;
      }
      const payload = completionBody(content, promptTokens, model);
      const send = () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
        res.end(payload);
      };
      // realistic-latency mode: every answer after `delayMs` (a provider's time to first byte and generation)
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, port: (server.address() as AddressInfo).port, count: () => requests };
}

if (process.send && process.argv.includes("--child")) {
  const di = process.argv.indexOf("--delay-ms");
  const { server, port, count } = await startBenchServer(di >= 0 ? Number(process.argv[di + 1]) : 0);
  process.send({ port });
  process.on("message", (m) => {
    if (m === "count") process.send!({ requests: count() });
    if (m === "stop") server.close(() => process.exit(0));
  });
  process.on("disconnect", () => process.exit(0));
}
