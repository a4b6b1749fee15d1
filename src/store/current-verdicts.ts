/**
 * The current verdict per (trajectory, judge, repeat) of a run, in storage order, slim (`slimVerdict`), held
 * compactly for its summary (issue 26): a verdict is its trajectory's slot plus a shared "shape", the slim verdict
 * without its `trajectory_id`. A signature run's verdicts have few distinct shapes (same judge, label, findings
 * counts, model...), so a million verdicts hold a few thousand objects; past {@link SHAPES_SHARED_MAX} distinct shapes
 * (LLM verdicts carry their own token counts and costs) a shape is kept per verdict, as before. A verdict is rebuilt
 * (`{trajectory_id, ...shape}`: same fields, same order, same values) only when read.
 */
import type { Verdict } from "../types.js";
import { IdSlots, IntColumn, Interner, PairTable } from "./compact.js";
import { currentVerdictKey } from "./records.js";
import { restOf } from "./resume-keys.js";

/** Most distinct shapes shared through the lookup table (each keyed by its JSON, a few hundred bytes). */
export const SHAPES_SHARED_MAX = 10_000;

/** Verdicts rebuilt between two calls of {@link CurrentVerdicts.heapCheck} (a power of two). */
export const HEAP_CHECK_EVERY = 1024;

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

  /** @param ids the trajectory slots (shared with the store). */
  constructor(private readonly ids: IdSlots) {}

  /** Add a slim verdict (JSON values, as a journal line reads back): it supersedes the one of the same key. */
  add(slim: Verdict): void {
    const slot = this.ids.slot(slim.trajectory_id);
    const key = this.rest.code(restOf(currentVerdictKey(slim)));
    const old = this.at.get(slot, key);
    if (old !== -1) {
      this.slotAt.set(old, -1);
      this.live--;
    }
    const { trajectory_id: _id, ...shape } = slim;
    const json = JSON.stringify(shape);
    let code = this.shapeCodes.get(json);
    if (code === undefined) {
      code = this.shapes.length;
      deepFreeze(shape);
      this.shapes.push(shape);
      if (this.shapeCodes.size < SHAPES_SHARED_MAX) this.shapeCodes.set(json, code);
    }
    const place = this.places++;
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

  /** Current verdicts held. */
  get size(): number {
    return this.live;
  }

  /** The current verdicts in storage order, each rebuilt as it is read (its nested parts shared and frozen). */
  *[Symbol.iterator](): Iterator<Verdict> {
    for (let p = 0; p < this.places; p++) {
      if ((p & (HEAP_CHECK_EVERY - 1)) === HEAP_CHECK_EVERY - 1) this.heapCheck?.();
      const slot = this.slotAt.get(p);
      if (slot === -1) continue;
      yield { trajectory_id: this.ids.id(slot), ...this.shapes[this.shapeAt.get(p)] } as Verdict;
    }
  }
}
