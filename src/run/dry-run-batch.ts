/**
 * `label --dry-run --batch` (red team 33 F8: with a batch in flight, the dry run said label "would refuse ... run
 * label with --batch" though --batch was given, and counted and priced its 20 requests again, while the real
 * `label --batch` only polled). Under `--batch` the dry run reads what `BatchJudgeRun.open` reads (`./batch.ts`):
 * the conversations of each batch judge's chunks not yet processed (their keys files, or their state files for
 * chunks written before keys files existed); label awaits them and sends nothing new for their items, so the dry run
 * counts neither their requests nor their cost, and says it would poll those chunks. It also prices a batch judge's
 * requests at its Batch API price (`price.batch_*`), or at the online price marked as an upper bound. Read only.
 */
import fs from "node:fs";
import path from "node:path";
import type { JudgePrice } from "../config/judges.js";
import type { Judge } from "../judges/judge.js";
import { readJsonl } from "../io/jsonl.js";
import { batchPrice } from "../providers/cost.js";
import { isBatchJudge } from "./batch-judges.js";
import { safeName, type KeyLine, type StateLine } from "./batch-chunk.js";
import type { BatchEntry } from "./batch-types.js";

/** One batch judge's chunks in flight, as `label --batch` would find them. */
export interface BatchAwaited {
  /** `<trajectory id>\u0000<repeat>` of the conversations in its unprocessed chunks. */
  items: Set<string>;
  chunks: number;
  requests: number;
}

/** The key of one (trajectory, repeat) in {@link BatchAwaited.items}. */
export const awaitedKey = (trajectoryId: string, repeat: number): string => `${trajectoryId}\u0000${repeat}`;

/**
 * The conversations each batch judge of this invocation has in chunks not yet processed (sent, or written and not
 * sent: label sends or polls those, it never judges their items again). Only judges that go through the Batch API.
 * A chunk whose files cannot be read counts its requests and no item (its items are then counted as new work).
 */
export async function batchAwaited(runDir: string, batches: readonly BatchEntry[], judges: readonly Judge[]): Promise<Map<string, BatchAwaited>> {
  const out = new Map<string, BatchAwaited>();
  for (const j of judges) {
    if (!isBatchJudge(j)) continue;
    const open = batches.filter((e) => e.judge_id === j.id && e.status !== "processed");
    if (open.length === 0) continue;
    const a: BatchAwaited = { items: new Set(), chunks: open.length, requests: open.reduce((n, e) => n + e.requests, 0) };
    const dir = path.join(runDir, "batches", safeName(j.id));
    for (const e of open) {
      const keys = path.join(dir, `${e.key}.keys.jsonl`);
      const state = path.join(dir, `${e.key}.state.jsonl`);
      try {
        if (fs.existsSync(keys)) for await (const l of readJsonl<KeyLine>(keys)) a.items.add(awaitedKey(l.t, l.r));
        else if (fs.existsSync(state)) for await (const l of readJsonl<StateLine>(state)) a.items.add(awaitedKey(l.conv.trajectory.id, l.conv.repeat));
      } catch {
        // unreadable: its items are counted as new work (an over-count, never an under-count)
      }
    }
    out.set(j.id, a);
  }
  return out;
}

/** What the dry run says of the chunks `label --batch` would poll (the result's `batches_to_poll`), or undefined when none. */
export function awaitedText(awaited: ReadonlyMap<string, BatchAwaited>): string | undefined {
  if (awaited.size === 0) return undefined;
  const per = [...awaited].map(([id, a]) => `judge "${id}": ${a.requests} request(s) in ${a.chunks} chunk(s), ${a.items.size} item(s)`).join("; ");
  return `label --batch would poll the Batch API chunks of an earlier run still in flight (${per}) and send nothing new for their items: they are not in the requests or the cost below (already sent; their results are collected)`;
}

/**
 * The price a dry run's judge is estimated at: under `--batch`, a batch judge's Batch API price (`batch`), or its
 * online price as an upper bound when its config gives none (`online_upper_bound`); otherwise its price as it is.
 */
export function dryRunPrice(j: Judge, price: JudgePrice | undefined, batch: boolean): { price?: JudgePrice; priced_at?: "batch" | "online_upper_bound" } {
  if (!price) return {};
  if (!batch || !isBatchJudge(j)) return { price };
  const bp = batchPrice(price);
  return bp ? { price: bp, priced_at: "batch" } : { price, priced_at: "online_upper_bound" };
}
