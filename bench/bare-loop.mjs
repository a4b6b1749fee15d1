/**
 * The bare HTTP loop as a program (`npm run bench`, realistic mode): what a user's own 20-line script sending the
 * same requests would be. Plain JavaScript (no TypeScript loader), run with `node bench/bare-loop.mjs <bodies.jsonl>
 * <url> <concurrency>`: reads the request bodies (one JSON request per line, exactly what ipi-judge sends, rendered
 * by the bench before the clock starts), POSTs them with the platform `fetch`, `concurrency` in flight, parses each
 * response, and exits. The bench times it from spawn to exit, as it times `ipi-judge label`, so both pay a Node.js
 * start and the reading of their input. Exits 1 on any response that is not a chat completion.
 */
import fs from "node:fs";

const [file, url, conc] = process.argv.slice(2);
const bodies = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
let next = 0;
let bad = 0;
const worker = async () => {
  for (;;) {
    const i = next++;
    if (i >= bodies.length) return;
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer not-needed" }, body: bodies[i] });
    const j = await res.json();
    if (!res.ok || !j.choices) bad++;
  }
};
await Promise.all(Array.from({ length: Number(conc) }, worker));
if (bad) {
  console.error(`bare loop: ${bad} bad responses`);
  process.exit(1);
}
