/**
 * Trajectories a run holds whose input file no longer exists (`input_removed`, inputs14): label a folder, delete a
 * file, label again, and the deleted file's trajectories and verdicts still counted in the run's figures, unsaid.
 *
 * What is done: a `label` invocation whose read ran to the end watches what it read (a trajectory, or a file taken as
 * unchanged unread); afterwards each trajectory the run holds that this read did not meet and whose recorded source
 * file does not exist is `input_removed`. The verdicts stay on disk (paid for; a restored file is read again and its
 * verdicts count again). The run records the count and a few ids in `store.json` (`label_state.inputs_removed`), and
 * every command that reads the run says it as a warning (`../store/run-state.ts`): the figures still hold those
 * trajectories, so they cover more than the current input files. Label the current inputs into a new `--run` for
 * figures over exactly them.
 *
 * Cost: nothing per item (what was met is the read's own duplicate table); `fs.existsSync` only for the run's trajectories the read did not meet
 * (none on an ordinary resume), once per distinct file.
 */
import fs from "node:fs";
import path from "node:path";
import type { IdSlots } from "../store/id-slots.js";
export { inputsRemovedText } from "../store/run-state.js";

/** How many removed trajectories' ids a statement names. */
const SHOWN = 3;

/** What a run holds of removed input files (module docstring). */
export interface InputsRemoved {
  /** trajectories whose source file no longer exists */
  count: number;
  /** the first few of their ids */
  examples: string[];
  /** the first few of their files */
  files: string[];
}

/** Watches one invocation's read and then finds the run's trajectories whose input file is gone (module docstring). */
export class RemovedInputs {
  /** whether the read met an id, by slot: the read's own duplicate table (`ReadOptions.onMetSlots`) */
  private metSlot: (slot: number) => boolean = () => false;
  private complete = false;

  /** @param slots the run store's id table (`RunStore.idSlots`), which numbers every id read and stored. */
  constructor(private readonly slots: IdSlots) {}

  /** The read's items, watched: a trajectory or an unchanged file marks its id met; complete when they run out. */
  async *watch<T extends { kind: string }>(items: AsyncIterable<T>): AsyncGenerator<T> {
    for await (const item of items) {
      this.see(item);
      yield item;
    }
    this.done();
  }

  /**
   * One item of the read ({@link watch}, or a watcher that already wraps the read: `ReadSince.watch`). What it met is
   * read from the read's own table ({@link metBy}): nothing to do per item.
   */
  see(_item: { kind: string }): void {}

  /**
   * The read's test of the ids it met, by slot of `slots` (`ReadOptions.onMetSlots`): no lookup per item here. The
   * first call is the main read's (it starts first); later reads given the same options (the sibling index, the
   * re-judge count) are not it and are ignored.
   */
  metBy(met: (slot: number) => boolean): void {
    if (this.given) return;
    this.given = true;
    this.metSlot = met;
  }
  private given = false;

  /** The read's items ran out: it ran to the end. */
  done(): void {
    this.complete = true;
  }

  /**
   * The run's trajectories whose source file no longer exists, among those this read did not meet.
   * @param sourceOf where the run's stored row of an id was read from (`RunStore.trajectorySource`: absolute path,
   *   `:line` for a JSON Lines row), undefined when the run holds no row of it.
   * @returns the statement, or undefined when the read did not run to the end (it cannot tell) or none is removed.
   */
  find(sourceOf: (id: string) => string | undefined): InputsRemoved | undefined {
    if (!this.complete) return undefined;
    const exists = new Map<string, boolean>();
    const out: InputsRemoved = { count: 0, examples: [], files: [] };
    for (let s = 0; s < this.slots.size; s++) {
      if (this.metSlot(s)) continue;
      const id = this.slots.id(s);
      const src = sourceOf(id);
      if (src === undefined || src === "") continue;
      const file = src.replace(/:\d+$/, "");
      // a source recorded relative to the working directory of an earlier invocation cannot be checked from here
      // (a resume from another directory found every such file "removed": red team 14): not said
      if (!path.isAbsolute(file)) continue;
      let there = exists.get(file);
      if (there === undefined) exists.set(file, (there = fs.existsSync(file) || (file !== src && fs.existsSync(src))));
      if (there) continue;
      out.count++;
      if (out.examples.length < SHOWN) out.examples.push(id);
      if (out.files.length < SHOWN && !out.files.includes(file)) out.files.push(file);
    }
    return out.count > 0 ? out : undefined;
  }
}
