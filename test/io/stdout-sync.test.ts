/**
 * stdoutWriter (src/io/stdout-sync.ts): large text through a pipe whose reader is slow is written synchronously,
 * never queued in the stream (red team 9: `--json | cat` queued the whole 30.6 MB), and a reader that closes early
 * ends the writer with exit 0. A child process writes; no timing is asserted (the reader's pause only makes the pipe
 * fill up).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stdout-sync-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A child that writes `n` chunks of 1 MiB (each its index repeated) then reports stdout's queued bytes on stderr. */
function child(n: number): string {
  const file = path.join(dir, `w${n}.mts`);
  fs.writeFileSync(
    file,
    `import { stdoutWriter } from ${JSON.stringify(path.join(ROOT, "src/io/stdout-sync.ts"))};
const w = stdoutWriter();
for (let i = 0; i < ${n}; i++) w(String(i % 10).repeat(1 << 20));
process.stderr.write("queued " + process.stdout.writableLength + "\\n");
`,
  );
  return file;
}

describe("stdoutWriter", () => {
  it("writes every byte in order through a slow pipe, with nothing left queued in the stream", async () => {
    const p = spawn(process.execPath, ["--import", "tsx", child(8)], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    p.stderr.on("data", (d) => (err += d));
    const parts: Buffer[] = [];
    p.stdout.pause(); // the pipe fills; the writer waits instead of queueing
    setTimeout(() => {
      p.stdout.on("data", (d: Buffer) => parts.push(d));
      p.stdout.resume();
    }, 300);
    const code = await new Promise<number | null>((r) => p.on("close", r));
    expect(code, err).toBe(0);
    const all = Buffer.concat(parts).toString("latin1");
    expect(all.length).toBe(8 << 20);
    for (let i = 0; i < 8; i++) expect(all.slice(i << 20, (i + 1) << 20)).toBe(String(i).repeat(1 << 20));
    expect(err).toContain("queued 0\n");
  }, 60_000);

  it("a reader that closes early ends the writer with exit 0, before it writes the rest", async () => {
    const p = spawn(process.execPath, ["--import", "tsx", child(64)], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    p.stderr.on("data", (d) => (err += d));
    p.stdout.once("data", () => p.stdout.destroy());
    const code = await new Promise<number | null>((r) => p.on("close", r));
    expect(code, err).toBe(0);
    expect(err).not.toContain("queued"); // it stopped at the closed pipe, not after writing 64 MiB
  }, 60_000);
});
