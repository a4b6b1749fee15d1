/**
 * The label passes that left a run's inputs read only in part, per input (break 51 #2; session 52: the record was per
 * run, so `label A --limit 100` then a full `label B` read complete though A was read only in part). `store.json`
 * `label_state` keeps two lists:
 * - `covered_inputs`: the inputs (absolute paths) a pass without --limit/--where read to the end (`complete`);
 * - `partial_passes`: the passes with `--limit` (that stopped the reading) or `--where` (that left trajectories out),
 *   each with the inputs it read (`inputs` as given, `resolved` absolute) that no such full pass has covered since.
 * An input is covered by a covered path equal to it or a folder holding it (a full pass over a model folder does not
 * cover the corpus folder a limited pass read). Per pass: a limited pass adds itself with its inputs not yet covered,
 * whatever its outcome (none: not added, its trajectories are stored; a `--limit` last pass keeps its own `limited`
 * note, ./run-state.ts); a full pass that ends `complete` adds its inputs to `covered_inputs` and takes them off every
 * listed pass, a pass left with none is dropped; any other outcome changes nothing. A pass recorded without its inputs
 * (session 51's build) is dropped only once every input of the run is covered.
 * An input that no longer exists (runs53: its folder moved, then a full pass over the new place, and the run read
 * "partial" for ever, no pass able to cover the old path) leaves every listed pass at a full pass that ended complete
 * and whose removal check told every stored trajectory it did not meet (`settled`: each was met here, moved, or left
 * out as input_removed; none "cannot be told"): nothing counted in the figures then comes from it.
 * A run recorded before `covered_inputs` (an older build) starts the list from what it shows: the inputs of its last
 * invocation when that ended complete without --limit and without a listed pass are covered; the run's other inputs
 * get one entry `history_unknown` (an earlier invocation read them, how is not recorded: ./run-state.ts says "pass
 * history unknown"), taken off as any other when a full pass covers them.
 */
import fs from "node:fs";
import path from "node:path";
import type { LabelState, PartialPass, RunSnapshot } from "./run-snapshot.js";

/** Whether absolute path `p` is `c` or inside folder `c`. */
function under(p: string, c: string): boolean {
  return p === c || p.startsWith(c.endsWith(path.sep) ? c : c + path.sep);
}

/** Whether absolute path `p` is covered by one of `covered`. */
export function isCovered(p: string, covered: readonly string[]): boolean {
  return covered.some((c) => under(p, c));
}

/** The partial-pass record a new pass starts from: `partial_passes` and `covered_inputs` of the carried `label_state`. */
export interface PassRecord {
  partial_passes: PartialPass[];
  covered_inputs: string[];
}

/**
 * The record a new pass starts from (see the module docstring).
 * @param prev the run's `label_state` before this pass (undefined: none recorded); @param trajectories how many
 *   trajectories the run holds before this pass (0 with no `label_state`: a new run); @param before the run's inputs
 *   (as given, resolved from the current directory) and last invocation before this pass.
 */
export function carriedPasses(prev: LabelState | undefined, trajectories: number, before: Pick<RunSnapshot, "inputs" | "last_invocation">): PassRecord {
  if (prev?.covered_inputs) return { partial_passes: prev.partial_passes ?? [], covered_inputs: prev.covered_inputs };
  if (!prev && trajectories === 0) return { partial_passes: [], covered_inputs: [] };
  // no last invocation recorded: the store cannot tell several invocations apart, its inputs read as the last pass's
  const last = before.last_invocation?.inputs ?? before.inputs;
  const lastWhole = !prev || (prev.state === "complete" && prev.limit === undefined && !prev.partial_passes?.length);
  const covered = lastWhole ? [...new Set(last.map((i) => path.resolve(i)))] : [];
  const passes: PartialPass[] = [...(prev?.partial_passes ?? [])];
  let known = covered;
  // recorded before partial_passes: a last pass that ended complete under --limit is the one known, over its inputs
  if (prev && !prev.partial_passes && prev.state === "complete" && prev.limit !== undefined && last.length) {
    passes.push({ started_at: prev.started_at, limit: prev.limit, inputs: last, resolved: last.map((i) => path.resolve(i)) });
    known = [...known, ...last.map((i) => path.resolve(i))];
  }
  const unknown = before.inputs.filter((i) => !isCovered(path.resolve(i), known));
  if (unknown.length) passes.push({ started_at: prev?.started_at ?? "?", history_unknown: true, inputs: unknown, resolved: unknown.map((i) => path.resolve(i)) });
  return { partial_passes: passes, covered_inputs: covered };
}

/**
 * Set `st.partial_passes` and `st.covered_inputs` after a pass ended (`st.state` set; see the module docstring).
 * @param limit this pass's --limit when it stopped the reading; @param where its --where text and how many read
 *   trajectories it left out (none left out: no limit); @param inputs this pass's inputs as given (resolved from the
 *   current directory); @param runInputs every input of the run, as given; @param settled whether this pass's removal
 *   check told every stored trajectory it did not meet (module docstring): a listed input no longer there then leaves.
 */
export function recordPasses(
  st: LabelState,
  limit: number | undefined,
  where: { text: string; left_out: number } | undefined,
  inputs: readonly string[],
  runInputs: readonly string[],
  settled = false,
): void {
  const covered = st.covered_inputs ?? [];
  const passes = st.partial_passes ?? [];
  const w = where?.left_out ? { where: where.text, left_out: where.left_out } : {};
  if (limit !== undefined || w.where) {
    const short = inputs.filter((i) => !isCovered(path.resolve(i), covered));
    st.partial_passes = short.length ? [...passes, { started_at: st.started_at, ...(limit !== undefined ? { limit } : {}), ...w, inputs: short, resolved: short.map((i) => path.resolve(i)) }] : passes;
    st.covered_inputs = covered;
    return;
  }
  st.covered_inputs = covered;
  st.partial_passes = passes;
  if (st.state !== "complete") return;
  const now = [...new Set([...covered, ...inputs.map((i) => path.resolve(i))])];
  const all = runInputs.every((i) => isCovered(path.resolve(i), now));
  st.covered_inputs = now;
  st.partial_passes = passes.flatMap((p) => {
    if (!p.resolved || !p.inputs) return all ? [] : [p];
    const keep = p.resolved.map((r, k) => [r, p.inputs![k]!] as const).filter(([r]) => !isCovered(r, now) && !(settled && !fs.existsSync(r)));
    return keep.length === 0 ? [] : [{ ...p, inputs: keep.map(([, i]) => i), resolved: keep.map(([r]) => r) }];
  });
}

/**
 * How a pass limited the run, as the state's message names it: `--limit 100 of runs/gpt-4o (/work/runs/gpt-4o) (started
 * 2026-12-07T10:00:00Z)`: an input given as a relative path is named with the path it resolved to then.
 */
export function passText(p: PartialPass): string {
  // a relative input names a place only with the directory it was given in: its resolved path beside it (runs53)
  const named = (p.inputs ?? []).map((i, k) => (p.resolved?.[k] !== undefined && p.resolved[k] !== i ? `${i} (${p.resolved[k]})` : i));
  const of = named.length ? ` of ${named.join(", ")}` : "";
  if (p.history_unknown) return `pass history unknown (labelled by an older build)${of}`;
  const how = [p.limit !== undefined ? `--limit ${p.limit}` : "", p.where !== undefined ? `--where ${p.where}${p.left_out !== undefined ? ` (${p.left_out.toLocaleString("en-US")} read trajectories left out)` : ""}` : ""].filter(Boolean);
  return `${how.join(" ")}${of} (started ${p.started_at})`;
}
