/**
 * The cost basis of verdicts stored without `cost_basis` (red team: a build older than `cost_basis` priced a Batch API
 * verdict at the online price and recorded nothing; every cost total then read it as online-priced, the bill, while the
 * Batch API bills about half). A verdict records no batch id, but the run does: `store.json` lists every Batch API chunk
 * of each judge (`extra.batches`), and each chunk's keys file (`batches/<judge>/<key>.keys.jsonl`, or its state file for
 * chunks written before keys files) names the (trajectory, repeat) of every conversation it held. A verdict without
 * `cost_basis`, with a cost above $0, whose (trajectory, judge, repeat) is in a chunk of its judge went through the
 * Batch API: `old_batch` (at the online price: an upper bound, said so). One of a judge whose chunks' files cannot all be
 * read is `unknown_basis` (counted apart, said). Every other verdict without `cost_basis` is online, as before.
 *
 * A verdict judged online again after its batch (an older `--retry-errors` without `--batch`) is read as `old_batch`
 * too: for it the online price is the bill, so "an upper bound" still holds. The keys are read once, lazily (only when a
 * verdict needs them), into 128-bit digests (`./batch-keys.ts`).
 */
import fs from "node:fs";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import type { StoredBasis } from "../providers/cost.js";
import type { Verdict } from "../types.js";
import { batchEntries } from "./config-change.js";
import { safeName, type KeyLine, type StateLine } from "./batch-chunk.js";
import { DigestSet } from "./batch-keys.js";
import type { BatchEntry } from "./batch-types.js";

/** The fields of a verdict its basis is read from. */
export type BasisFields = Pick<Verdict, "trajectory_id" | "judge_id" | "repeat" | "cost_basis" | "cost_usd">;

/** A verdict's {@link StoredBasis}: its own `cost_basis`, or what the run's chunks tell of one without it (module docstring). */
export type BasisOf = (v: BasisFields) => StoredBasis | undefined;

/**
 * The basis reader of a run folder (module docstring); undefined when the run has no Batch API chunk (every verdict's
 * basis is its own `cost_basis`). Reads `store.json` now, the chunk files the first time a verdict needs them.
 */
export function storedBasisOf(runDir: string): BasisOf | undefined {
  let entries: BatchEntry[];
  try {
    entries = batchEntries((JSON.parse(fs.readFileSync(path.join(runDir, "store.json"), "utf8")) as { extra?: unknown }).extra);
  } catch {
    return undefined;
  }
  if (entries.length === 0) return undefined;
  const judges = new Set(entries.map((e) => e.judge_id));
  let read: { keys: DigestSet; unreadable: Set<string> } | undefined;
  return (v) => {
    if (v.cost_basis !== undefined) return v.cost_basis;
    // $0 (no request, or one failed unbilled) is exact at any price
    if (!judges.has(v.judge_id) || typeof v.cost_usd !== "number" || !(v.cost_usd > 0)) return undefined;
    read ??= readChunkKeys(runDir, entries);
    if (read.keys.has(keyOf(v.judge_id, v.trajectory_id, v.repeat))) return "old_batch";
    return read.unreadable.has(v.judge_id) ? "unknown_basis" : undefined;
  };
}

const keyOf = (judge: string, trajectory: string, repeat: number): string => `${judge}\u0000${trajectory}\u0000${repeat}`;

/** Every chunk's (judge, trajectory, repeat), and the judges with a chunk whose keys and state files cannot be read. */
function readChunkKeys(runDir: string, entries: readonly BatchEntry[]): { keys: DigestSet; unreadable: Set<string> } {
  const keys = new DigestSet();
  const unreadable = new Set<string>();
  for (const e of entries) {
    const dir = path.join(runDir, "batches", safeName(e.judge_id));
    try {
      const kf = path.join(dir, `${e.key}.keys.jsonl`);
      if (fs.existsSync(kf)) eachLine(kf, (l) => keys.add(keyOf(e.judge_id, (l as KeyLine).t, (l as KeyLine).r)));
      else eachLine(path.join(dir, `${e.key}.state.jsonl`), (l) => keys.add(keyOf(e.judge_id, (l as StateLine).conv.trajectory.id, (l as StateLine).conv.repeat)));
    } catch {
      unreadable.add(e.judge_id);
    }
  }
  return { keys, unreadable };
}

/** Each JSON line of a file, read in 1 MiB blocks (a state file holds a whole trajectory a line); a torn last line is skipped. */
function eachLine(file: string, fn: (line: unknown) => void): void {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(1 << 20);
    const text = new StringDecoder("utf8"); // a character cut between two blocks is joined
    let rest = "";
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      const lines = (rest + text.write(buf.subarray(0, n))).split("\n");
      rest = lines.pop()!;
      for (const l of lines) if (l.trim()) fn(JSON.parse(l));
    }
    rest += text.end();
    if (rest.trim())
      try {
        fn(JSON.parse(rest));
      } catch {
        // a torn last line (a kill while writing): its conversation was never listed as sent
      }
  } finally {
    fs.closeSync(fd);
  }
}
