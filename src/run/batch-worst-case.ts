/**
 * The worst case of what a run's Batch API chunks not yet processed will bill: the conversations an earlier `label
 * --batch` invocation sent (or wrote and has not sent: the next `--batch` sends them whatever the cap) and whose
 * results are not stored. `label --batch --max-cost` reserves it before any new conversation is queued (`./batch-cap.ts`),
 * and `label --dry-run --max-cost` counts it (`./dry-run-cap.ts`), so a resume cannot send more than the cap allows
 * (before: those conversations reserved nothing and were counted only as their results were stored).
 *
 * Each conversation is reserved as a new one is (`reserveCostUsd` of its trajectory, read from the chunk's state file,
 * at the judge's batch price, else its online price as an upper bound): its whole conversation, the turns a follow-up
 * chunk's conversation already had answered included (they were paid and are in no stored verdict yet). Lines of a
 * chunk whose processing was cut short and whose verdicts are stored are reserved too (an over-count, never an
 * under-count). A chunk whose state file cannot be read reserves nothing: its requests are counted in `not_reserved`
 * and said, never passed off as reserved.
 *
 * Cost: it reads the state files (a whole trajectory a line) of the unprocessed chunks: only under a cap.
 */
import fs from "node:fs";
import path from "node:path";
import type { Judge } from "../judges/judge.js";
import { readJsonl } from "../io/jsonl.js";
import type { PricedAt } from "../providers/cost.js";
import { reservationPricedAt, reserveCostUsd, type BatchInFlightReserved } from "./cost-cap.js";
import { safeName, type StateLine } from "./batch-chunk.js";
import type { BatchEntry } from "./batch-types.js";

/** One judge's conversations in chunks not yet processed, reserved at their worst case. */
export interface InFlightWorstCase {
  /** Conversations in its unprocessed chunks (their requests). */
  conversations: number;
  /** The sum of their worst cases (USD) at the price the batch bills (`priced_at`). */
  usd: number;
  /** The price they are reserved at: `batch`, or `online_upper_bound` (no batch price). */
  priced_at: PricedAt;
  /** Of `conversations`, those in chunks whose state file could not be read: not in `usd`. */
  not_reserved: number;
}

/**
 * {@link InFlightWorstCase} of `judge` over the run's chunks (module docstring); undefined when it has none in flight.
 * @param runDir the run folder (`batches/<judge>/` beside `store.json`); @param entries the run's chunks (`batchEntries`).
 */
export async function inFlightWorstCase(
  runDir: string,
  entries: readonly BatchEntry[],
  judge: Judge,
  ctx: { budgetChars?: number; minQuoteChars?: number },
): Promise<InFlightWorstCase | undefined> {
  const open = entries.filter((e) => e.judge_id === judge.id && e.status !== "processed");
  if (open.length === 0) return undefined;
  const out: InFlightWorstCase = { conversations: 0, usd: 0, priced_at: reservationPricedAt(judge, true), not_reserved: 0 };
  const dir = path.join(runDir, "batches", safeName(judge.id));
  for (const e of open) {
    const state = path.join(dir, `${e.key}.state.jsonl`);
    let n = 0;
    let usd = 0;
    try {
      if (!fs.existsSync(state)) throw new Error("missing");
      for await (const l of readJsonl<StateLine>(state)) {
        usd += reserveCostUsd(l.conv.trajectory, judge, ctx, true);
        n++;
      }
    } catch {
      // unreadable: its requests are said as not reserved (never counted at $0 in silence)
      out.conversations += e.requests;
      out.not_reserved += e.requests;
      continue;
    }
    out.conversations += n;
    out.usd += usd;
  }
  return out;
}

/** Sum per-judge {@link InFlightWorstCase}s into the cap's statement; undefined when no conversation is in flight. */
export function sumInFlight(per: Iterable<InFlightWorstCase>): BatchInFlightReserved | undefined {
  const s: BatchInFlightReserved = { conversations: 0, reserved_usd: 0, priced_at: {} };
  for (const w of per) {
    s.conversations += w.conversations;
    s.reserved_usd += w.usd;
    const reserved = w.conversations - w.not_reserved;
    if (reserved > 0) s.priced_at[w.priced_at] = (s.priced_at[w.priced_at] ?? 0) + reserved;
    if (w.not_reserved > 0) s.not_reserved = (s.not_reserved ?? 0) + w.not_reserved;
  }
  return s.conversations > 0 ? s : undefined;
}

/** The words of {@link BatchInFlightReserved} (the label summary's cap line and the dry run's). */
export function inFlightReservedText(s: BatchInFlightReserved): string {
  const at = Object.entries(s.priced_at)
    .map(([k, n]) => `${k === "batch" ? "the batch price" : "the online price, no batch price: an upper bound"} for ${n}`)
    .join(", ");
  return (
    `$${s.reserved_usd.toFixed(4)} reserved (worst case${at ? `, at ${at}` : ""}) for ${s.conversations} conversation(s) in Batch API chunks an earlier invocation left in flight, until their results are stored` +
    (s.not_reserved ? `; ${s.not_reserved} of them in chunks whose state file cannot be read are NOT reserved: the cap cannot bound them` : "")
  );
}
