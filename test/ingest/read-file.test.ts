/**
 * src/ingest/read-file.ts: files up to REUSED_BYTES are read into one reused buffer. Reading files of mixed sizes in
 * turn (a large one, then smaller ones, one over the reuse size, then small again) gives each file's own trajectory,
 * the same as reading it alone: nothing of an earlier file's bytes leaks into a later one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";
import { readJsonBytes, REUSED_BYTES } from "../../src/ingest/read-file.js";
import { CORPUS } from "../helpers/paths.js";

const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_9/important_instructions/injection_task_1.json");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-readfile-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function readAll(paths: string[]): Promise<IngestItem[]> {
  const items: IngestItem[] = [];
  for await (const it of readTrajectories(paths)) items.push(it);
  return items;
}

describe("the reused read buffer", () => {
  const text = fs.readFileSync(SRC, "utf8");
  const run = JSON.parse(text) as Record<string, unknown>;
  const variants: Array<[string, string]> = [
    ["a", JSON.stringify({ ...run, duration: 1, pad: "x".repeat(5000) })],
    ["b", JSON.stringify({ ...run, duration: 2 })],
    ["c", JSON.stringify({ ...run, duration: 3, pad: "z".repeat(REUSED_BYTES + 10) })],
    ["d", JSON.stringify(run)],
    ["e", "{ not json"],
    ["f", JSON.stringify({ ...run, duration: 4 })],
  ];
  const files = variants.map(([dir, body]) => {
    const f = path.join(tmp, dir, "injection_task_1.json");
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, body);
    return f;
  });

  it("each file of a mixed read is read as when read alone", async () => {
    const together = await readAll(files);
    const alone = (await Promise.all(files.map((f) => readAll([f])))).map((x) => x[0]);
    expect(together.map((i) => i.kind)).toEqual(["trajectory", "trajectory", "trajectory", "trajectory", "error", "trajectory"]);
    const content = (i: IngestItem) => (i.kind === "trajectory" ? { m: i.trajectory.messages, d: i.trajectory.metadata?.duration } : i.error.kind);
    expect(together.map(content)).toEqual(alone.map(content));
    expect(together.map((i) => (i.kind === "trajectory" ? i.trajectory.metadata?.duration : undefined))).toEqual([1, 2, 3, run.duration, undefined, 4]);
  });

  it("readJsonBytes gives exactly the file's bytes, small and over the reuse size", () => {
    for (const f of files) {
      const r = readJsonBytes(f, Infinity);
      if ("error" in r) throw new Error(r.error.message);
      expect(r.bytes.equals(fs.readFileSync(f))).toBe(true);
      expect(r.stamp.size).toBe(fs.statSync(f).size);
    }
  });
});
