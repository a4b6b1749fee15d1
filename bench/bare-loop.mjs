/**
 * The bare HTTP loop as a program (`npm run bench`, realistic mode): what a user's own short script sending the
 * same requests would be. Plain JavaScript (no TypeScript loader), run with `node bench/bare-loop.mjs <bodies.jsonl>
 * <url> <concurrency>`: reads the request bodies (one JSON request per line, exactly what ipi-judge sends, rendered
 * by the bench before the clock starts) as it goes, 1 MiB at a time (as `label` reads its input files as it goes:
 * reading all ~100 MB up front cost this program 0.6-1.5 s of page faults and string decoding on the bench machine,
 * a handicap no real script needs), POSTs each with the platform `fetch`, `concurrency` in flight, parses each
 * response, and exits. The bench times it from spawn to exit, as it times `ipi-judge label`, so both pay a Node.js
 * start and the reading of their input. Exits 1 on any response that is not a chat completion.
 */
import fs from "node:fs";

const [file, url, conc] = process.argv.slice(2);
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
let bad = 0;
const worker = async () => {
  for (let body = nextBody(); body !== undefined; body = nextBody()) {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer not-needed" }, body });
    const j = await res.json();
    if (!res.ok || !j.choices) bad++;
  }
};
await Promise.all(Array.from({ length: Number(conc) }, worker));
fs.closeSync(fd);
if (bad) {
  console.error(`bare loop: ${bad} bad responses`);
  process.exit(1);
}
