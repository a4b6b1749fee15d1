/**
 * Injected text recovered from the difference with the clean run (issue 24, the fallback after sibling runs): an
 * attacked run that records no injections and has no sibling that does takes, as its injected text, what its tool
 * results hold that the unattacked run of the same suite, user task, agent model and condition returned without it
 * for the same call (same tool, same arguments). AgentDojo-style benchmarks insert the injection at a placeholder in
 * an otherwise identical environment, so the difference is the injection as the agent read it.
 *
 * Rules (conservative: a wrong text would be a wrong label):
 * - a call is compared only with the clean run's call of the same tool and the same arguments (compact JSON, keys
 *   sorted, null and empty values dropped);
 * - a result counts only when it is the clean result with one short piece replaced ({@link insertedText}: a result
 *   that differs over a longer stretch, such as another environment state or several injected e-mails between benign
 *   ones, is not used), and the new piece has at least {@link MIN_DIFF_ALNUM} letters and digits; a piece shown
 *   escaped (`\\n` in a Python repr) is read back as the text placed ({@link unescapeRepr});
 * - clean runs of one key that disagree on a call's result (a nondeterministic environment) make that call unusable;
 * - the differences found (one per call, deduplicated) become the injections `clean_diff:<n>`, with
 *   `injection_source: {kind: "clean_run_diff", from: [clean run id]}`.
 *
 * Memory: only the tool results of the clean runs whose key some unrecovered run needs are kept (`wanted`), built by
 * one more read of the inputs, and only when such a run exists (`run/siblings.ts`).
 */
import type { Trajectory } from "../types.js";
import { walkOrder } from "./walk-order.js";

/** Least letters and digits a difference must have to be taken as an injected text. */
export const MIN_DIFF_ALNUM = 40;

/** The key of a clean run for an attacked one: suite, user task, agent model, condition; undefined when one lacks. */
export function cleanKey(t: Pick<Trajectory, "suite" | "user_task_id" | "agent_model" | "condition">): string | undefined {
  const parts = [t.suite, t.user_task_id, t.agent_model, t.condition ?? "no_defense"];
  if (parts.some((p) => typeof p !== "string" || p === "")) return undefined;
  return JSON.stringify(parts);
}

/** Arguments as compact JSON with keys sorted and null / empty values dropped (`{"q":"x","min":null}` = `{"q":"x"}`). */
function normalArgs(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (!v || typeof v !== "object" || Array.isArray(v)) return args;
    const kept = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== null && x !== "" && !(Array.isArray(x) && x.length === 0))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return JSON.stringify(Object.fromEntries(kept));
  } catch {
    return args;
  }
}

/** Each tool result of a trajectory with the call it answers (`name(arguments)`), paired by id, else by order. */
export function callResults(t: Trajectory): Array<{ call: string; text: string }> {
  const byId = new Map<string, string>();
  const queue: string[] = [];
  const out: Array<{ call: string; text: string }> = [];
  for (const m of t.messages ?? []) {
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) {
        const k = `${c.name}(${normalArgs(c.arguments)})`;
        if (c.id) byId.set(c.id, k);
        queue.push(k);
      }
    } else if (m.role === "tool") {
      let k = m.tool_call_id ? byId.get(m.tool_call_id) : undefined;
      if (k !== undefined) {
        const at = queue.indexOf(k);
        if (at >= 0) queue.splice(at, 1);
      } else k = queue.shift();
      if (k !== undefined && typeof m.text === "string") out.push({ call: k, text: m.text });
    }
  }
  return out;
}

/** Longest clean text a piece may replace: a placeholder's default (a review, a note), not a stretch of results. */
export const MAX_REPLACED_CHARS = 300;

/**
 * The text `attacked` puts in place of a short piece of `clean` (an AgentDojo-style placeholder: the clean run shows
 * its default, the attacked one the injection): the part between the two results' common prefix and common suffix,
 * when the clean part it replaces is at most {@link MAX_REPLACED_CHARS} long; null otherwise (the results differ over
 * a longer stretch: another environment state, several insertions with benign text between), so nothing is guessed.
 */
export function insertedText(attacked: string, clean: string): string | null {
  const max = Math.min(attacked.length, clean.length);
  let p = 0;
  while (p < max && attacked.charCodeAt(p) === clean.charCodeAt(p)) p++;
  let s = 0;
  while (s < max - p && attacked.charCodeAt(attacked.length - 1 - s) === clean.charCodeAt(clean.length - 1 - s)) s++;
  if (clean.length - p - s > MAX_REPLACED_CHARS) return null;
  return attacked.slice(p, attacked.length - s);
}

/**
 * A piece cut out of a result that shows strings escaped (a Python or JSON repr: `\\n` for a line break) read back as
 * the text that was placed (its sentences and lines are what the goal rules parse); a piece with real line breaks, or
 * none, is kept as it is.
 */
export function unescapeRepr(s: string): string {
  if (s.includes("\n") || !/\\[ntr'"\\]/.test(s)) return s;
  return s.replace(/\\([ntr'"\\])/g, (_m, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c === "r" ? "" : c));
}

const alnum = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, "").length;

/** Clean runs' results by key and call, for the keys asked for. */
export class CleanRunIndex {
  /** key -> {least id of its clean runs (`walkOrder`), call -> result (null: clean runs disagree)} */
  private readonly byKey = new Map<string, { id: string; calls: Map<string, string | null> }>();

  /** @param wanted the clean keys some unrecovered attacked run needs (only those are kept). */
  constructor(private readonly wanted: ReadonlySet<string>) {}

  /** Keep the tool results of one unattacked run, when its key is wanted. */
  add(t: Trajectory): void {
    if (t.attack || Object.keys(t.injections ?? {}).length > 0 || !/^user_task/.test(t.user_task_id ?? "")) return;
    const key = cleanKey(t);
    if (key === undefined || !this.wanted.has(key)) return;
    let e = this.byKey.get(key);
    if (!e) this.byKey.set(key, (e = { id: t.id, calls: new Map() }));
    else if (walkOrder(t.id, e.id) < 0) e.id = t.id; // the clean run named does not depend on the inputs' order
    for (const r of callResults(t)) {
      const had = e.calls.get(r.call);
      if (had === undefined) e.calls.set(r.call, r.text);
      else if (had !== null && had !== r.text) e.calls.set(r.call, null);
    }
  }

  /**
   * The run with the differences from its clean run as injections, or a reason why none was found.
   * @returns `{trajectory}` (a copy with `injections` and `injection_source`) or `{reason}`.
   */
  recover(t: Trajectory): { trajectory: Trajectory } | { reason: string } {
    const key = cleanKey(t);
    const e = key === undefined ? undefined : this.byKey.get(key);
    if (!e) return { reason: "no unattacked run of the same suite, user task, agent model and condition either" };
    const found: string[] = [];
    for (const r of callResults(t)) {
      const clean = e.calls.get(r.call);
      if (typeof clean !== "string" || clean === r.text) continue;
      const diff = unescapeRepr(insertedText(r.text, clean) ?? "").trim() || undefined;
      if (diff !== undefined && alnum(diff) >= MIN_DIFF_ALNUM && !found.includes(diff)) found.push(diff);
    }
    if (found.length === 0) return { reason: `no tool result differs from the unattacked run ${e.id} by an inserted text` };
    const injections = Object.fromEntries(found.map((d, i) => [`clean_diff:${i}`, d]));
    return { trajectory: { ...t, injections, injection_source: { kind: "clean_run_diff", from: [e.id] } } };
  }
}
