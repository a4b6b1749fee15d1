/**
 * Injected text recovered from sibling runs (issue 24): an attacked run whose log records no injections (AgentDyn's
 * DRIFT schema) takes the text that runs of the same suite, user task, injection task, attack and agent model record
 * (AgentDojo-style attacks render the same text for the same model, whatever the defense).
 *
 * Memory: the index keeps, per sibling key, the distinct injection records seen (at most two: a second distinct one
 * already makes the key ambiguous) and the least id ({@link walkOrder}) of the runs that recorded each; never a whole trajectory. A
 * streaming `label` builds it in one extra read of its inputs, only when it meets a run that needs it
 * ({@link needsSibling}).
 *
 * Rules: the record must be the same (every placeholder, the same text) in every sibling that records one; two
 * different records are ambiguous and never guessed (`injection_unrecovered: ambiguous_sibling`); no sibling leaves
 * the run to the clean-run difference (`./clean-diff.ts`, when `buildSiblingIndex` attached one), else as it was with
 * `injection_unrecovered: no_sibling`. A recovered run gets `injection_source: {kind: "sibling", from: [sibling id]}`
 * (or `clean_run_diff`), which its verdicts carry; the sibling named is the least id by {@link walkOrder}, whatever
 * order the inputs were given in.
 */
import type { Trajectory } from "../types.js";
import { readTrajectories, type ReadOptions } from "../ingest/index.js";
import { isAttacked } from "../verdict/exposure.js";
import { recordsInjection, withInstructingDescriptions } from "../serialize/instructing.js";
import { CleanRunIndex, cleanKey } from "./clean-diff.js";
import { walkOrder } from "./walk-order.js";

/** The fields that make two runs siblings, joined; undefined when one is missing (such a run has no sibling). */
export function siblingKey(t: Pick<Trajectory, "suite" | "user_task_id" | "injection_task_id" | "attack" | "agent_model">): string | undefined {
  const parts = [t.suite, t.user_task_id, t.injection_task_id, t.attack, t.agent_model];
  if (parts.some((p) => typeof p !== "string" || p === "")) return undefined;
  return JSON.stringify(parts);
}

/** Whether an attacked run records no injected text and has no instructing tool description to stand for it. */
export function needsSibling(t: Trajectory): boolean {
  if (recordsInjection(t) || !isAttacked(t)) return false;
  return withInstructingDescriptions(t) === t;
}

interface Entry {
  /**
   * Distinct injection records (canonical JSON) -> the least run id ({@link walkOrder}) that recorded it; at most 2
   * records kept (a second already makes the key ambiguous): those with the least ids.
   */
  records: Map<string, string>;
  /** How many sibling runs recorded one. */
  runs: number;
}

/** Canonical form of an injection record: placeholders sorted, empty texts dropped. */
function canonical(injections: Record<string, string>): string {
  const entries = Object.entries(injections)
    .filter(([, v]) => typeof v === "string" && v.trim() !== "")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/** The injection records of sibling runs, by sibling key (module docstring). */
export class SiblingIndex {
  private readonly byKey = new Map<string, Entry>();
  /** The fallback for runs without a sibling (set by {@link buildSiblingIndex} when such runs exist). */
  clean?: CleanRunIndex;

  /** Whether a sibling key holds at least one record. */
  has(key: string): boolean {
    return (this.byKey.get(key)?.records.size ?? 0) > 0;
  }

  /** Number of sibling keys held. */
  get size(): number {
    return this.byKey.size;
  }

  /** Record the injections of one run (a run that records none, or lacks a key field, adds nothing). */
  add(t: Trajectory): void {
    if (!recordsInjection(t) || t.injection_source) return;
    const key = siblingKey(t);
    if (key === undefined) return;
    let e = this.byKey.get(key);
    if (!e) this.byKey.set(key, (e = { records: new Map(), runs: 0 }));
    e.runs++;
    const c = canonical(t.injections);
    const had = e.records.get(c);
    if (had !== undefined) {
      if (walkOrder(t.id, had) < 0) e.records.set(c, t.id);
      return;
    }
    if (e.records.size < 2) {
      e.records.set(c, t.id);
      return;
    }
    // a third distinct record: the two kept are those with the least ids, so that the ambiguity names the same runs
    // whatever the order of the inputs (red team 23 L1)
    let worst: string | undefined;
    for (const [k, id] of e.records) if (worst === undefined || walkOrder(id, e.records.get(worst)!) > 0) worst = k;
    if (walkOrder(t.id, e.records.get(worst!)!) < 0) {
      e.records.delete(worst!);
      e.records.set(c, t.id);
    }
  }

  /**
   * The run with its injections recovered from its siblings, when it needs them ({@link needsSibling}); else `t`
   * itself. Never mutates `t`.
   * @returns a copy with `injections` and `injection_source: {kind: "sibling", from: [id]}`, or with
   *   `injection_unrecovered` (`no_sibling` / `ambiguous_sibling`) and `injections` unchanged.
   */
  recover(t: Trajectory): Trajectory {
    if (!needsSibling(t)) return t;
    const key = siblingKey(t);
    const e = key === undefined ? undefined : this.byKey.get(key);
    if (!e || e.records.size === 0) {
      let missing = key === undefined ? "it lacks a suite, user task, injection task, attack or agent model to find siblings by" : "no run of the same suite, user task, injection task, attack and agent model records it";
      if (this.clean) {
        const d = this.clean.recover(t);
        if ("trajectory" in d) return d.trajectory;
        missing += `, and ${d.reason}`;
      }
      return { ...t, injection_unrecovered: { kind: "no_sibling", message: missing } };
    }
    if (e.records.size > 1) {
      const ids = [...e.records.values()].sort(walkOrder);
      return {
        ...t,
        injection_unrecovered: {
          kind: "ambiguous_sibling",
          message: `sibling runs of the same suite, user task, injection task, attack and agent model record different injected texts (e.g. ${ids.join(" and ")}): not guessed`,
        },
      };
    }
    const [[c, id]] = [...e.records];
    const injections = Object.fromEntries(JSON.parse(c) as Array<[string, string]>);
    return { ...t, injections, injection_source: { kind: "sibling", from: [id] } };
  }
}

/**
 * Build the sibling index over every trajectory of the inputs: one streaming read, keeping only each run's key and
 * injection record (module docstring). Ingest errors and warnings are left to the main read.
 * @param inputs the files and folders `label` reads; @param opts the same read options (format, overrides, ...).
 */
export async function buildSiblingIndex(inputs: string[], opts: ReadOptions): Promise<SiblingIndex> {
  const index = new SiblingIndex();
  const { onWarning: _w, strict: _s, ...quiet } = opts;
  // sibling key -> clean key of the runs that need a sibling
  const needs = new Map<string, Set<string>>();
  for await (const item of readTrajectories(inputs, quiet)) {
    if (item.kind !== "trajectory") continue;
    const t = item.trajectory;
    index.add(t);
    if (!needsSibling(t)) continue;
    const sk = siblingKey(t);
    const ck = cleanKey(t);
    if (sk === undefined || ck === undefined) continue;
    if (!needs.has(sk)) needs.set(sk, new Set());
    needs.get(sk)!.add(ck);
  }
  // runs no sibling can serve: the clean-run difference, from one more read keeping only the clean runs they need
  const wanted = new Set<string>();
  for (const [sk, cks] of needs) if (!index.has(sk)) for (const ck of cks) wanted.add(ck);
  if (wanted.size > 0) {
    const clean = new CleanRunIndex(wanted);
    for await (const item of readTrajectories(inputs, quiet)) if (item.kind === "trajectory") clean.add(item.trajectory);
    index.clean = clean;
  }
  return index;
}
