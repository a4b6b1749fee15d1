/**
 * The bare loop program (`bench/bare-loop.mjs`) with the `openai` v6 client in place of `fetch`: what the client
 * alone costs per request, nothing of ipi-judge around it (README-bench.md, "CPU per request", round two). Run
 * with `node bench/openai-loop.mjs <bodies.jsonl> <base url, e.g. http://127.0.0.1:PORT/v1> <concurrency>` against
 * `bench/server.ts`; the bodies file is the one the realistic mode writes (one JSON request per line). Each body is
 * sent as JSON text (as ipi-judge sends it), `maxRetries: 0`; the input is read 1 MiB at a time as the bare loop
 * reads it. Exits 1 on any response that is not a chat completion. Time it with `/usr/bin/time` beside the bare loop.
 * A fourth argument picks the client's `fetch`: `platform` (default, the platform `fetch`), `ipi` (ipi-judge's own,
 * `limitedFetch()` of `dist/providers/fetch.js`: chat completions over undici's `request()`, after `npm run build`)
 * or `ipi-fetch` (`limitedFetch` over the platform `fetch`, as before round three).
 */
import fs from "node:fs";
import OpenAI from "openai";

const [file, base, conc, transport = "platform"] = process.argv.slice(2);
const { limitedFetch } = transport === "platform" ? {} : await import("../dist/providers/fetch.js");
const clientFetch = transport === "ipi" ? limitedFetch() : transport === "ipi-fetch" ? limitedFetch(undefined, globalThis.fetch) : undefined;
const client = new OpenAI({ apiKey: "not-needed", baseURL: base, maxRetries: 0, timeout: 60_000, ...(clientFetch ? { fetch: clientFetch } : {}) });
const fd = fs.openSync(file, "r");
const CHUNK = 1 << 20;
let buf = Buffer.alloc(0);
let eof = false;
/** The next request body (bytes of one line), or undefined at the end of the file. */
function nextBody() {
  for (;;) {
    const nl = buf.indexOf(10);
    if (nl >= 0) {
      const line = buf.subarray(0, nl);
      buf = buf.subarray(nl + 1);
      if (line.length > 0) return line;
      continue;
    }
    if (eof) {
      const rest = buf;
      buf = Buffer.alloc(0);
      return rest.length > 0 ? rest : undefined;
    }
    const chunk = Buffer.allocUnsafe(CHUNK);
    const n = fs.readSync(fd, chunk, 0, CHUNK, null);
    if (n === 0) eof = true;
    buf = Buffer.concat([buf, chunk.subarray(0, n)]);
  }
}
const JSON_TYPE = { "content-type": "application/json" };
let bad = 0;
const worker = async () => {
  for (let body = nextBody(); body !== undefined; body = nextBody()) {
    const reply = await client.chat.completions.create(body.toString("utf8"), { headers: JSON_TYPE });
    if (!reply.choices) bad++;
  }
};
await Promise.all(Array.from({ length: Number(conc) }, worker));
fs.closeSync(fd);
if (bad) {
  console.error(`openai loop: ${bad} bad responses`);
  process.exit(1);
}
