/**
 * Ingest warnings: things read that are not errors (the item is kept) but that a user must know because they can
 * change a number (a guessed model or defense, a run without a benchmark verdict, a benchmark verdict on a row
 * that counts as unattacked). A warning names a scope (a model folder, a file) and is reported ONCE per scope and
 * kind with the count of items it concerns, never once per item.
 */
import type { IngestError, Trajectory } from "../types.js";

/** One aggregated warning, as the reader reports it at the end of a read (`ReadOptions.onWarning`). */
export interface IngestWarning {
  /** What kind of problem: `attribution`, `no_verdict`, `verdict_on_unattacked`, `id_collision`, `stale_tool_record`, ... */
  kind: string;
  /** The folder or file the warning is about. */
  path: string;
  /** The text, naming the scope, the count and how to act on it. */
  message: string;
  /** How many items (files, lines, samples) it concerns. */
  count: number;
}

/**
 * Kinds of {@link IngestWarning} that are notes, not warnings: nothing read is lost or counted differently (a
 * corpus's sidecar files passed over, `./sidecars.ts`; files and folders reached twice through links and read once,
 * `./walk.ts`; folders of ipi-judge's own output passed over, `./own-folders.ts`; `label --where`'s count of the warnings about trajectories it left out, `../run/where-warnings.ts`).
 * `label` shows them apart from the input warnings.
 */
export const NOTE_KINDS: ReadonlySet<string> = new Set(["passed_over", "linked_twice", "read_once", "left_out_by_where", "own_output"]);

/** The note kind of `label --where`'s one line counting the warnings about trajectories it left out. */
export const WHERE_LEFT_OUT = "left_out_by_where";

/** A warning raised by one item's conversion, before aggregation. */
export interface ItemWarning {
  kind: string;
  /** The scope it is aggregated under (a model folder, a file). */
  scope: string;
  /** The text without the count: aggregated items with the same kind and scope keep the first item's text. */
  message: string;
  /** The item it was raised for (a file or `file:line`), named in the aggregated message as the first example. */
  item?: string;
  /**
   * What tells apart warnings of one kind and scope that must each be named (e.g. each distinct spelling of a
   * verdict, `security="False"` and `security="0.0"`): aggregated separately, one message per variant.
   */
  variant?: string;
  /**
   * The file it was raised in, when its scope is wider than one file (the run): the aggregated message names the
   * files ({@link namedFiles}), so a warning about many files is said once, not once per file (the Inspect epochs note).
   */
  file?: string;
}

/** How many files an aggregated message names before `and N more`. */
export const NAMED_FILES_MAX = 5;

/** `in 3 files: a, b, c` (`in 1 file: a`; past {@link NAMED_FILES_MAX}: `..., and 4 more`). */
export function namedFiles(files: readonly string[]): string {
  const shown = files.slice(0, NAMED_FILES_MAX).join(", ");
  const more = files.length > NAMED_FILES_MAX ? `, and ${files.length - NAMED_FILES_MAX} more` : "";
  return `in ${files.length} ${files.length === 1 ? "file" : "files"}: ${shown}${more}`;
}

/** Aggregates {@link ItemWarning}s by kind, scope and variant ({@link ItemWarning.variant}). */
export class WarningCollector {
  private readonly byKey = new Map<string, { w: ItemWarning; count: number; files: Set<string> }>();
  private readonly totals = new Map<string, number>();

  /** How many items a scope (a file) held in all: the aggregated message then says `N of TOTAL items`. */
  total(scope: string, n: number): void {
    this.totals.set(scope, n);
  }

  add(w: ItemWarning, n = 1): void {
    const key = `${w.kind}\u0000${w.scope}\u0000${w.variant ?? ""}`;
    const cur = this.byKey.get(key);
    const e = cur ?? { w, count: 0, files: new Set<string>() };
    if (!cur) this.byKey.set(key, e);
    e.count += n;
    if (w.file !== undefined) e.files.add(w.file);
  }

  /**
   * The aggregated warnings in first-seen order: `<message> (<count> item(s), e.g. <first item>)`, and
   * `(<count> item(s), e.g. <first item>; in N files: a, b)` when its items name their files ({@link ItemWarning.file}).
   */
  drain(): IngestWarning[] {
    const out: IngestWarning[] = [];
    for (const { w, count, files } of this.byKey.values()) {
      const eg = w.item !== undefined && count > 1 ? `, e.g. ${w.item}` : w.item !== undefined ? `: ${w.item}` : "";
      const total = this.totals.get(w.scope);
      const of = total !== undefined ? ` of ${total}` : "";
      const items = total !== undefined ? (total === 1 ? "item" : "items") : count === 1 ? "item" : "items";
      const inFiles = files.size > 0 ? `; ${namedFiles([...files])}` : "";
      out.push({ kind: w.kind, path: w.scope, message: `${w.message} (${count}${of} ${items}${eg}${inFiles})`, count });
    }
    this.byKey.clear();
    this.totals.clear();
    return out;
  }
}

/**
 * Outcome of converting one item (a run log, a JSONL line, a sample) by any format's converter: the trajectory
 * with its warnings (aggregated by the reader, e.g. per model folder: a guessed model or defense, a missing
 * verdict, a stale VIGIL tool record), or the error naming the file, line or message index.
 */
export type ConvertResult = { ok: true; trajectory: Trajectory; warnings?: ItemWarning[] } | { ok: false; error: IngestError };
