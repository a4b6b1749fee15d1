/**
 * Trajectories a run holds whose input is gone (`input_removed`, inputs14, removed15): label a folder, delete a file
 * (or a row of a JSON Lines file), label again, and the gone trajectories' verdicts still counted in the run's figures.
 *
 * What is done: a `label` invocation whose read ran to the end watches what it read (a trajectory, or a file taken as
 * unchanged unread); afterwards each trajectory the run holds that this read did not meet is `input_removed` when its
 * recorded source file does not exist, or exists and was met by this read (another trajectory of it was read) without
 * this id. Their ids go to the run's `inputs-removed.json` (`../store/removed-ids.ts`) and every reader of the run
 * leaves them out of the figures, saying so once; the verdicts stay on disk (paid for; a restored file is read again
 * and its verdicts count again). `store.json` (`label_state.inputs_removed`) holds the count and a few ids.
 *
 * Cost: nothing per item (what was met is the read's own duplicate table); `fs.existsSync` only for the run's trajectories the read did not meet
 * (none on an ordinary resume), once per distinct file.
 */
import fs from "node:fs";
import path from "node:path";
import type { IdSlots } from "../store/id-slots.js";
export { leftOutText } from "../store/removed-ids.js";

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
  /** every one of their ids (what `../store/removed-ids.ts` records and every reader leaves out) */
  ids: string[];
  /** of {@link ids}, those whose content this read met under another id (moved: `../store/removed-ids.ts` says them so) */
  moved?: string[];
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
   * read from the read's own table ({@link metBy}); an input error's file is kept: a one-trajectory file that now
   * fails to read (emptied, broken JSON, unreadable) no longer holds its trajectory (red team 15 F3: it kept counting,
   * while a broken JSON Lines row was left out).
   */
  see(item: { kind: string }): void {
    if (item.kind !== "error") return;
    const p = (item as { error?: { path?: unknown } }).error?.path;
    if (typeof p === "string") this.errorFiles.add(path.resolve(p));
  }

  /** the files this read met as input errors (resolved) */
  private readonly errorFiles = new Set<string>();

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

  /**
   * An id the read met under another name: a chat-JSONL line that keeps the id the run stored for it
   * (`keepStoredChatId`, `../run/resume.ts`); the read's own table holds the name it read, not this one.
   */
  meet(id: string): void {
    this.keptIds.add(id);
  }
  private readonly keptIds = new Set<string>();

  /** The read's items ran out: it ran to the end. */
  done(): void {
    this.complete = true;
  }

  /**
   * The run's trajectories whose input is gone, among those this read did not meet: the recorded source file no
   * longer exists, or it exists and this read met it (it read another trajectory recorded from that file) but not this
   * id (a row deleted from a JSON Lines or multi-record file, or no longer read as this trajectory).
   * @param o `relative`: whether an id's stored source path was relative, and `inputs`: this invocation's input paths;
   *   such a source, resolved from this directory, is judged gone only under those inputs (red team 15); `recorded`:
   *   the ids an earlier read recorded as removed (not counted in {@link unchecked}: they stay left out).
   *   `inScope`: whether this read speaks for a stored id at all (`label --where`: only those it keeps; default all).
   *   `placeNow`: where a recorded file is now when this read moved its folder's rows (`SourceMoves.placeNow`).
   * @param sourceOf where the run's stored row of an id was read from (`RunStore.trajectorySource`: absolute path,
   *   `:line` for a JSON Lines row), undefined when the run holds no row of it.
   * @returns the statement (every id, a few files), or undefined when the read did not run to the end (it cannot
   *   tell) or none is removed.
   */
  find(
    sourceOf: (id: string) => string | undefined,
    o: { relative?: (id: string) => boolean; inputs?: readonly string[]; recorded?: ReadonlySet<string>; contentCode?: (slot: number) => number; inScope?: (id: string) => boolean; placeNow?: (file: string) => string | undefined } = {},
  ): InputsRemoved | undefined {
    if (!this.complete) return undefined;
    this.found = true;
    // a source recorded as a relative path resolves against this directory, maybe not the one it was read from: it
    // is judged gone only under this invocation's input paths, which this read covered (red team 15: label c from one
    // directory, then label d from another, and c's 96 present files were called removed and left every figure)
    const roots = (o.inputs ?? []).map((p) => path.resolve(p));
    const underInputs = (file: string) => roots.some((r) => file === r || file.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
    const exists = new Map<string, boolean>();
    const out: InputsRemoved = { count: 0, examples: [], files: [], ids: [] };
    const add = (id: string, file: string) => {
      out.count++;
      out.ids.push(id);
      if (out.examples.length < SHOWN) out.examples.push(id);
      if (out.files.length < SHOWN && !out.files.includes(file)) out.files.push(file);
    };
    /** unmet ids whose file is still there: removed when this read met that file (found once they are all known) */
    const inExisting: Array<{ id: string; file: string }> = [];
    /** unmet ids recorded from a relative path not there from here nor under the inputs: a moved folder? ({@link moved}) */
    const elsewhere: Array<{ id: string; file: string }> = [];
    for (let s = 0; s < this.slots.size; s++) {
      if (this.metSlot(s)) continue;
      const id = this.slots.id(s);
      if (this.keptIds.has(id) || (o.inScope && !o.inScope(id))) continue;
      const src = sourceOf(id);
      if (src === undefined || src === "") continue;
      const file = src.replace(/:\d+$/, "");
      // a source recorded relative to the working directory of an earlier invocation cannot be checked from here
      // (a resume from another directory found every such file "removed": red team 14): not said
      if (!path.isAbsolute(file)) continue;
      let there = exists.get(file);
      if (there === undefined) exists.set(file, (there = fs.existsSync(file) || (file !== src && fs.existsSync(src))));
      if (there) inExisting.push({ id, file });
      else if (!o.relative?.(id) || underInputs(file)) add(id, file);
      else if (!o.recorded?.has(id)) elsewhere.push({ id, file });
    }
    const moved = this.moved(sourceOf, elsewhere, roots, o.relative, o.placeNow);
    const metContent = o.contentCode && moved.some((x) => !x.gone) ? this.metContent(o.contentCode, moved) : undefined;
    for (const x of moved) {
      // its content read now under another id: the same trajectory moved (`./moved-content.ts`), not counted twice
      if (x.gone) add(x.id, x.file);
      else if (metContent?.(x.id)) (add(x.id, x.file), (out.moved ??= []).push(x.id));
      else if (this.unchecked.count++ === 0) Object.assign(this.unchecked, { example: x.id, folder: path.relative(process.cwd(), path.dirname(x.file)) });
    }
    if (inExisting.length) {
      const metFiles = this.metFiles(sourceOf, new Set(inExisting.map((x) => x.file)));
      for (const x of inExisting) if (metFiles.has(x.file) || this.errorFiles.has(x.file)) add(x.id, x.file);
    }
    return out.count > 0 ? out : undefined;
  }

  /**
   * After {@link find}: the run's trajectories this read did not meet whose source, recorded as a relative path, is
   * not there from this directory nor under this invocation's inputs, and whose folder's new place this read does not
   * show ({@link moved}): they cannot be told gone (labelled from another directory, or their folder moved or renamed)
   * and still count (red team 37 F1, variant B: said, not silent). `folder`: the first one's recorded folder.
   */
  readonly unchecked: { count: number; example?: string; folder?: string } = { count: 0 };

  /**
   * Whether {@link find} ran over a read that ran to the end and told every stored trajectory the read did not meet
   * (met elsewhere, moved, or gone; none {@link unchecked}): what `../store/partial-passes.ts` needs to let an input
   * that no longer exists leave the run's partial passes.
   */
  get settled(): boolean {
    return this.found && this.unchecked.count === 0;
  }
  private found = false;

  /**
   * The unmet trajectories recorded from a relative path that is neither there from here nor under the inputs (their
   * folder moved or renamed, or labelled from another directory), told apart where the read shows where the folder
   * went: a trajectory it met, recorded from the same old folder `P` (a path prefix of both records), whose recorded
   * path less `P` is a file under an input `R` now, maps `P` to `R` (the read covered `R`); an unmet one under `P` whose
   * file is not at its mapped place is `gone` (deleted before or after the move: red team 37 F1 variant B, it still
   * counted, with a warning). Without such a mapping (no trajectory of that folder read now), or with its file there,
   * it cannot be told. Runs only when there are such trajectories: a stat per met trajectory's folder and depth.
   */
  private moved(
    sourceOf: (id: string) => string | undefined,
    elsewhere: { id: string; file: string }[],
    roots: readonly string[],
    relative: ((id: string) => boolean) | undefined,
    placeNow: ((file: string) => string | undefined) | undefined,
  ): Array<{ id: string; file: string; gone: boolean }> {
    if (elsewhere.length === 0) return [];
    // this read rewrote the rows of its folder with their new paths (../store/source-moved.ts): its new place is known
    // (under this invocation's inputs only, which it read whole: a place outside them is not judged, as below)
    const gone = (now: string) => !fs.existsSync(now) || this.errorFiles.has(path.resolve(now));
    const inRoots = (f: string | undefined) => (f !== undefined && roots.some((r) => f === r || f.startsWith(r.endsWith(path.sep) ? r : r + path.sep)) ? f : undefined);
    const known = placeNow ? elsewhere.map((x) => ({ x, now: inRoots(placeNow(x.file)) })) : [];
    if (known.length && known.every((k) => k.now !== undefined)) return known.map(({ x, now }) => ({ ...x, gone: gone(now!) }));
    const partsOf = (file: string) => path.relative(process.cwd(), file).split(path.sep);
    const firsts = new Set(elsewhere.map((x) => partsOf(x.file)[0]));
    const map = new Map<string, string>(); // old folder prefix (recorded, relative) -> the input it is under now
    const tried = new Set<string>();
    for (let s = 0; s < this.slots.size; s++) {
      if (!this.metSlot(s)) continue;
      const id = this.slots.id(s);
      const src = sourceOf(id)?.replace(/:\d+$/, "");
      if (!src || !relative?.(id)) continue;
      const parts = partsOf(src);
      const dir = parts.slice(0, -1).join(path.sep);
      if (!firsts.has(parts[0]) || tried.has(dir)) continue;
      tried.add(dir);
      for (let k = 1; k < parts.length; k++) {
        const r = roots.find((root) => fs.existsSync(path.join(root, ...parts.slice(k))));
        if (r !== undefined) {
          map.set(parts.slice(0, k).join(path.sep), r);
          break;
        }
      }
    }
    return elsewhere.map((x) => {
      const now = inRoots(placeNow?.(x.file));
      if (now !== undefined) return { ...x, gone: gone(now) };
      const parts = partsOf(x.file);
      for (let k = parts.length - 1; k > 0; k--) {
        const r = map.get(parts.slice(0, k).join(path.sep));
        if (r === undefined) continue;
        return { ...x, gone: gone(path.join(r, ...parts.slice(k))) };
      }
      return { ...x, gone: false };
    });
  }

  /**
   * Whether an unmet id's content (its stored content code) is that of an id this read met: the test, over `xs`,
   * of the ids whose folder {@link moved} could not place (red team 39: a renamed model folder counted twice). One
   * pass over the met slots, keeping only the codes asked for.
   */
  private metContent(code: (slot: number) => number, xs: ReadonlyArray<{ id: string; gone: boolean }>): (id: string) => boolean {
    const wanted = new Set<number>();
    for (const x of xs) if (!x.gone) wanted.add(code(this.slots.find(x.id)));
    wanted.delete(-1);
    const met = new Set<number>();
    for (let s = 0; s < this.slots.size && met.size < wanted.size; s++) {
      if (!this.metSlot(s)) continue;
      const c = code(s);
      if (wanted.has(c)) met.add(c);
    }
    return (id) => {
      const c = code(this.slots.find(id));
      return c !== -1 && met.has(c);
    };
  }

  /** Which of `wanted` (files) this read met: the recorded files of the ids it met, among `wanted`. */
  private metFiles(sourceOf: (id: string) => string | undefined, wanted: ReadonlySet<string>): Set<string> {
    const met = new Set<string>();
    for (let s = 0; s < this.slots.size && met.size < wanted.size; s++) {
      if (!this.metSlot(s)) continue;
      const file = sourceOf(this.slots.id(s))?.replace(/:\d+$/, "");
      if (file !== undefined && wanted.has(file)) met.add(file);
    }
    return met;
  }

  /**
   * A read cut short (`--limit`, interrupted) cannot tell what is gone, but what it met is not: the ids of an earlier
   * record it met (a restored input read again) leave the record.
   * @param ids the earlier record's ids (`../store/removed-ids.ts`).
   * @returns the ids still removed (the same array when none was met).
   */
  stillRemoved(ids: readonly string[]): readonly string[] {
    const left = ids.filter((id) => {
      if (this.keptIds.has(id)) return false;
      const s = this.slots.find(id);
      return s === -1 || !this.metSlot(s);
    });
    return left.length === ids.length ? ids : left;
  }
}
