/**
 * The current verdict per (trajectory, judge, repeat) of a run, in storage order, slim (`slimVerdict`), held
 * compactly for its summary (issue 26): a verdict is its trajectory's slot plus a shared "shape", the slim verdict
 * without its `trajectory_id`. A signature run's verdicts have few distinct shapes (same judge, label, findings
 * counts, model...), so a million verdicts hold a few thousand objects. An LLM verdict's own numbers (its `usage` token
 * counts and its `cost_usd`) are held apart, in number columns, and its shape keeps 0 in their place (issue 26: with
 * them in, every LLM verdict was a shape of its own, ~590 B a verdict, ~590 MB at a million through the Batch API);
 * past {@link SHAPES_SHARED_MAX} distinct shapes a shape is kept per verdict, as before. A verdict is rebuilt
 * (`{trajectory_id, ...shape}` with its numbers put back: same fields, same order, same values) only when read.
 */
import type { Verdict } from "../types.js";
import { FloatColumn, IdSlots, IntColumn, Interner, PairTable } from "./compact.js";
import { sameJson } from "./same-json.js";

/** Most distinct shapes shared through the lookup table (each keyed by its JSON, a few hundred bytes). */
export const SHAPES_SHARED_MAX = 10_000;

/** Verdicts rebuilt between two calls of {@link CurrentVerdicts.heapCheck} (a power of two). */
export const HEAP_CHECK_EVERY = 1024;

/** The `usage` fields held in number columns (`Verdict.usage`); a usage with any other field is kept in its shape. */
const USAGE_FIELDS = ["prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens", "responses_without_usage"] as const;

/**
 * What of a shape is held in the number columns: the column of each of its `usage` fields in the shape's key order
 * (null: its usage is kept in the shape), and whether its `cost_usd` is.
 */
interface Numbers {
  usage: number[] | null;
  cost: boolean;
}

/** Which of a slim verdict's numbers go to the columns: a usage of known fields, all numbers; a cost that is a number. */
function numbersOf(shape: Record<string, unknown>): Numbers {
  const u = shape.usage;
  let usage: number[] | null = null;
  if (typeof u === "object" && u !== null && !Array.isArray(u)) {
    usage = [];
    for (const [k, v] of Object.entries(u)) {
      const c = (USAGE_FIELDS as readonly string[]).indexOf(k);
      if (c < 0 || typeof v !== "number") {
        usage = null;
        break;
      }
      usage.push(c);
    }
  }
  return { usage, cost: typeof shape.cost_usd === "number" };
}

/** Freeze a JSON value and everything in it (a shared part must not be changed through one of its holders). */
export function deepFreeze(x: unknown): void {
  if (typeof x !== "object" || x === null || Object.isFrozen(x)) return;
  Object.freeze(x);
  for (const v of Object.values(x)) deepFreeze(v);
}

/** The current verdicts of a run (module docstring). */
export class CurrentVerdicts implements Iterable<Verdict> {
  /** (trajectory slot, judge + repeat code) -> place */
  private readonly at = new PairTable(PairTable.TIGHT);
  private readonly rest = new Interner();
  /** per place: the trajectory slot, -1 once superseded */
  private readonly slotAt = new IntColumn();
  private readonly shapeAt = new IntColumn();
  private places = 0;
  private live = 0;
  private readonly shapes: Array<Omit<Verdict, "trajectory_id">> = [];
  private readonly shapeCodes = new Map<string, number>();
  /** the shape of the verdict added last (-1: none yet) */
  private lastCode = -1;
  /** per shape: which of its numbers are in the columns */
  private readonly shapeNumbers: Numbers[] = [];
  /** per place: `usage` by field ({@link USAGE_FIELDS}) and `cost_usd`, for shapes whose {@link Numbers} say so */
  private readonly usageAt = USAGE_FIELDS.map(() => new FloatColumn());
  private readonly costAt = new FloatColumn();

  /** @param ids the trajectory slots (shared with the store). */
  constructor(private readonly ids: IdSlots) {}

  /**
   * Add a slim verdict (JSON values, as a journal line reads back): it supersedes the one of the same key.
   * @param share called on a shape not held yet, before it is frozen and held (the store shares its repeated parts
   *   there); it must leave the shape's fields and values as they are.
   */
  add(slim: Verdict, share?: (shape: Record<string, unknown>) => void): void {
    const slot = this.ids.slot(slim.trajectory_id);
    // the key's (judge, repeat) part: the slot stands for the trajectory (as the rest of `currentVerdictKey` after the id, unbuilt)
    const key = this.rest.code(`${slim.judge_id}\u0000${slim.repeat}`);
    const old = this.at.get(slot, key);
    if (old !== -1) {
      this.slotAt.set(old, -1);
      this.live--;
    }
    const { trajectory_id: _id, ...shape } = slim;
    const place = this.places++;
    // the verdict's own numbers to the columns, 0 in their place in the shape (so LLM verdicts share shapes too)
    const w = shape as Record<string, unknown>;
    const nums = numbersOf(w);
    if (nums.usage) {
      const u = w.usage as Record<string, number>;
      const zero: Record<string, number> = {};
      for (const c of nums.usage) {
        this.usageAt[c].set(place, u[USAGE_FIELDS[c]]);
        zero[USAGE_FIELDS[c]] = 0;
      }
      w.usage = zero;
    }
    if (nums.cost) {
      this.costAt.set(place, w.cost_usd as number);
      w.cost_usd = 0;
    }
    // most verdicts have the shape of the one before (7 in 10 of a signature run's): no JSON text built for them
    let code = this.lastCode !== -1 && sameJson(shape, this.shapes[this.lastCode]) ? this.lastCode : undefined;
    if (code === undefined) {
      const json = JSON.stringify(shape);
      code = this.shapeCodes.get(json);
      if (code === undefined) {
        code = this.shapes.length;
        share?.(w);
        deepFreeze(shape);
        this.shapes.push(shape);
        this.shapeNumbers.push(nums);
        if (this.shapeCodes.size < SHAPES_SHARED_MAX) this.shapeCodes.set(json, code);
      }
      this.lastCode = code;
    }
    this.at.set(slot, key, place);
    this.slotAt.set(place, slot);
    this.shapeAt.set(place, code);
    this.live++;
  }

  /**
   * Called every {@link HEAP_CHECK_EVERY} verdicts an iteration rebuilds (the CLI's heap-size GC trigger, set by the
   * store): a summary of a million verdicts makes ~250 MB of short-lived objects that V8 otherwise lets pile up.
   */
  heapCheck?: () => void;

  /** Distinct shapes held (verdicts that differ only by their numbers share one). */
  get shapeCount(): number {
    return this.shapes.length;
  }

  /** Current verdicts held. */
  get size(): number {
    return this.live;
  }

  /**
   * The trajectory ids of the current verdicts whose slot `held` says no to, in storage order, one per verdict (as
   * iterating the verdicts and asking of each id, without rebuilding the verdicts): what `noteVerdictsWithoutRow` reads.
   */
  *idsWithout(held: (slot: number) => boolean): Iterable<{ trajectory_id: string }> {
    for (let p = 0; p < this.places; p++) {
      const slot = this.slotAt.get(p);
      if (slot !== -1 && !held(slot)) yield { trajectory_id: this.ids.id(slot) };
    }
  }

  /** The current verdicts in storage order, each rebuilt as it is read (its nested parts shared and frozen). */
  *[Symbol.iterator](): Iterator<Verdict> {
    for (let p = 0; p < this.places; p++) {
      if ((p & (HEAP_CHECK_EVERY - 1)) === HEAP_CHECK_EVERY - 1) this.heapCheck?.();
      const slot = this.slotAt.get(p);
      if (slot === -1) continue;
      const code = this.shapeAt.get(p);
      const v = { trajectory_id: this.ids.id(slot), ...this.shapes[code] } as Verdict;
      const nums = this.shapeNumbers[code];
      if (nums.usage) {
        const u: Record<string, number> = {};
        for (const c of nums.usage) u[USAGE_FIELDS[c]] = this.usageAt[c].get(p);
        v.usage = u as unknown as Verdict["usage"];
      }
      if (nums.cost) v.cost_usd = this.costAt.get(p);
      yield v;
    }
  }
}
