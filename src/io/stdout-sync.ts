/**
 * A writer for large text on stdout that never queues it in the stream's buffer: `process.stdout.write` on a pipe
 * keeps every chunk the reader has not taken yet (red team 9: `--json` of 30.6 MB through `| cat` queued all of it,
 * 400 MB peak against 124 MB into a file), so the chunks are written to file descriptor 1 with `fs.writeSync`
 * instead, waiting (`Atomics.wait`, 2 ms) while a non-blocking pipe is full (`EAGAIN`).
 */
import fs from "node:fs";

/**
 * A function writing text to stdout synchronously, every byte before it returns.
 *
 * Falls back to `process.stdout.write` (queued, in order) when stdout has no file descriptor (a worker thread, a
 * replaced stream), already holds queued text, which a direct write would overtake, or has its own `write` (a test's
 * spy or a wrapper, which must see the text).
 * A closed reader (`EPIPE`, `ipi-judge ... | head`) ends the process with exit 0, as the CLI's stdout error handler
 * does (src/cli/main.ts): the rest would be written for nobody.
 * @returns `(text) => void`; throws what `fs.writeSync` throws other than `EAGAIN` and `EPIPE`.
 */
export function stdoutWriter(): (text: string) => void {
  const out = process.stdout as NodeJS.WriteStream & { fd?: number };
  // a replaced `write` (a test's spy, a wrapper) is honoured: the text goes through it
  if (typeof out.fd !== "number" || out.writableLength > 0 || Object.hasOwn(out, "write")) return (s) => void out.write(s);
  const fd = out.fd;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  return (s) => {
    const buf = Buffer.from(s, "utf8");
    let off = 0;
    while (off < buf.length) {
      try {
        off += fs.writeSync(fd, buf, off);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") Atomics.wait(nap, 0, 0, 2);
        else if (code === "EPIPE") process.exit(0);
        else throw e;
      }
    }
  };
}
