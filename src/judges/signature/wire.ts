/**
 * How a trajectory travels to a signature worker (`./pool.ts`, `./worker.ts`). When `label` made its index row, the
 * trajectory's content hash was computed over the JSON text of its messages, injections and tools
 * (`../../io/hash.ts` `keptContentText`): that text is sent as it is (a string is copied in one piece) with the
 * trajectory's other fields, and the worker parses it back, instead of the structured clone walking the same
 * messages again on the calling thread (issue 26: the clone was the calling thread's largest item after the reading).
 * A trajectory with no kept text (a library caller's own object, or one given other values since) is cloned whole,
 * as before.
 *
 * What the worker gets is the trajectory's JSON form for those three fields: the same values, keys and order, less
 * keys whose value is `undefined` (a message's absent `tool_calls`, `error`, ...), which the judge reads as absent
 * either way (`m.tool_calls ?? []`, `m.error !== undefined`). Its other fields are cloned, in their order.
 */
import { keptContentText } from "../../io/hash.js";
import type { Trajectory } from "../../types.js";

/** A trajectory as sent: whole (`c` absent), or with `messages`, `injections` (and `tools` when `c` holds them) null and their JSON text in `c`. */
export interface WireTrajectory {
  t: Trajectory;
  /** The JSON text `{"m": messages, "i": injections[, "t": tools]}` (`contentSha256`'s), when sent that way. */
  c?: string;
}

/**
 * The form in which `t` is sent to a worker (module docstring).
 * @returns `{t}` (cloned whole) when no content text is kept for it, else `{t: fields with the three nulled, c: text}`.
 */
export function toWire(t: Trajectory): WireTrajectory {
  const kept = keptContentText(t);
  // both are in every trajectory `label` reads; one without them keeps its exact form
  if (kept === undefined || !Array.isArray(t.messages) || typeof t.injections !== "object" || t.injections === null) return { t };
  const rest: Record<string, unknown> = {};
  for (const k of Object.keys(t)) {
    rest[k] = k === "messages" || k === "injections" || (k === "tools" && kept.tools) ? null : (t as unknown as Record<string, unknown>)[k];
  }
  return { t: rest as unknown as Trajectory, c: kept.text };
}

/** The trajectory a worker judges, from what {@link toWire} sent (the fields in their order; `w.t` is reused). */
export function fromWire(w: WireTrajectory): Trajectory {
  if (w.c === undefined) return w.t;
  const content = JSON.parse(w.c) as { m: Trajectory["messages"]; i: Trajectory["injections"]; t?: Trajectory["tools"] };
  const t = w.t;
  t.messages = content.m;
  t.injections = content.i;
  if (content.t !== undefined) t.tools = content.t;
  return t;
}
