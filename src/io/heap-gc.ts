/**
 * When `label` forces a full garbage collection: by heap size, never on a fixed count of verdicts (issue 26).
 *
 * V8 grows its old generation lazily, so on a long run the garbage of items that were in flight piles up to
 * hundreds of MB before V8 collects it by itself. A collection every N verdicts (the rule before) costs time in
 * proportion to the live heap each time, so over a run whose live set grows it is quadratic (1.2-1.7 ms per MB of
 * live heap; 102 pauses, 14 s in a 40k run). The rule here: after each forced collection remember the heap left
 * (`live`, bytes); collect again only once the used heap has grown past `live + max(minHeadroom, live x
 * headroomShare)` and the resident set is above `rssFloor`. Garbage comes at a steady rate per verdict, so the
 * collections are spaced by at least a fixed amount of new garbage, and by more as the live heap grows: each costs
 * in proportion to `live` and comes after `>= live x headroomShare` bytes of allocation, so their total is
 * proportional to what the run allocates (linear), not to verdicts x live heap.
 *
 * `label` since issue 26's session 19 uses the rule only as a backstop ({@link LABEL_BACKSTOP_RULE}): a forced
 * collection drops optimized code (V8 clears objects it embeds, "weak objects" deoptimizations, and recompiles), so
 * `label` sets V8's own growing factor instead (`../cli/v8-tuning.ts` `tuneHeapForLabel`), and forces one only when
 * the heap has grown far past what that factor allows (V8 refusing the flag, or a case it does not cover).
 */
import v8 from "node:v8";
import vm from "node:vm";

/** Settings of the heap-size trigger (bytes). */
export interface HeapGcRule {
  /** No forced collection while the resident set is below this. */
  rssFloor: number;
  /** Least growth of the used heap over what the last collection left before the next one. */
  minHeadroom: number;
  /** Growth allowed as a share of what the last collection left (0.5 = the heap may reach 1.5x the live set). */
  headroomShare: number;
}

/** The rule `label` uses: 200 MB resident floor, 64 MB or half the live heap of headroom. */
export const HEAP_GC_RULE: HeapGcRule = { rssFloor: 200 * 1024 * 1024, minHeadroom: 64 * 1024 * 1024, headroomShare: 0.5 };

/**
 * `label`'s backstop (main thread; the signature workers use their own, `../judges/signature/worker.ts`): the heap may
 * double what the last forced collection left, and at least 128 MB, before one is forced; V8's own collections under
 * the growing factor `label` sets (50%) keep it well below that, so a run forces a few at most (each time its live set
 * has grown by half), not one per 64 MB of garbage.
 */
export const LABEL_BACKSTOP_RULE: HeapGcRule = { rssFloor: 200 * 1024 * 1024, minHeadroom: 128 * 1024 * 1024, headroomShare: 1 };

/**
 * Decide on a forced collection from the heap now (pure).
 * @param heapUsed bytes of used heap now; @param rss resident bytes now; @param live bytes of used heap the last
 *   forced collection left (0 before the first).
 * @returns true when a full collection is due.
 */
export function gcDue(heapUsed: number, rss: number, live: number, rule: HeapGcRule = HEAP_GC_RULE): boolean {
  return heapGrown(heapUsed, live, rule) && rss >= rule.rssFloor;
}

/** The heap half of {@link gcDue}: the used heap has grown past what the last collection left plus the headroom. */
function heapGrown(heapUsed: number, live: number, rule: HeapGcRule): boolean {
  return heapUsed > live + Math.max(rule.minHeadroom, live * rule.headroomShare);
}

/**
 * The heap now, as the trigger reads it by default: `heapUsed` from V8's heap statistics (the number
 * `process.memoryUsage().heapUsed` gives, ~3 us) and `rss` read only when asked (a getter: reading the resident set
 * costs ~50 us, a file read under /proc, and {@link gcDue} asks for it only once the heap has grown enough).
 * Why: `process.memoryUsage()` on every check was 0.5-0.8% of `label`'s CPU at 300 ms / 64 (issue 26).
 */
function heapNow(): { heapUsed: number; rss: number } {
  return {
    heapUsed: v8.getHeapStatistics().used_heap_size,
    get rss() {
      return process.memoryUsage.rss();
    },
  };
}

/**
 * A checker to call as verdicts are stored: it looks at the heap (cheap) and runs `gc` when {@link gcDue} says so.
 * @param gc a full collection (e.g. from `--expose-gc`); @param memory the heap now ({@link heapNow} by default, or a
 *   stand-in; its `rss` is read only when the heap has grown enough).
 * @returns `check()` (call it often: it collects only when due) and `collections()` (how many it ran).
 */
export function heapGcTrigger(
  gc: () => void,
  memory: () => { heapUsed: number; rss: number } = heapNow,
  rule: HeapGcRule = HEAP_GC_RULE,
): { check(): void; collections(): number } {
  let live = 0;
  let n = 0;
  return {
    check() {
      const m = memory();
      // gcDue's two halves, the resident set (costly to read) only once the heap has grown
      if (!heapGrown(m.heapUsed, live, rule) || m.rss < rule.rssFloor) return;
      gc();
      n++;
      live = memory().heapUsed;
    },
    collections: () => n,
  };
}

/**
 * A full garbage collection function, or undefined where the runtime refuses it. `label` (and `committee`, between
 * its analysis steps) runs one when the heap has grown enough since the last ({@link heapGcTrigger}: by heap size,
 * never on a fixed count of verdicts, which was quadratic over a long run). `--expose-gc` is switched on by the first
 * call, before any collection is needed; where the runtime refuses it, the command runs without it.
 */
export function fullGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}
