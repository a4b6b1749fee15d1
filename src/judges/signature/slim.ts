/**
 * What of a trajectory the signature judge's worker is sent (`./pool.ts`): the trajectory less the fields neither the
 * analysis nor its verdict reads, so that the structured clone to the worker (and its garbage on both threads) is
 * smaller (issue 26: the clone's deserialization was 136 MB of the worker's allocations over 11,384 AgentDojo runs).
 *
 * Left out: `reference` and `run_error` (the benchmark's verdict: read from the index row on the calling thread,
 * `../../verdict/reference-goal.ts`), `injection_task_id`; `source` keeps only `format` (the surface a format implies,
 * `../../serialize/surface.ts`), `metadata` only `original_attack` and `original_condition` (`../../ingest/attacked.ts`,
 * `../../serialize/instructing.ts`). Every other field is sent as it is (a field added later is sent until it is
 * listed here). Measured by a proxy over the judge on the AgentDojo, AgentDojo scale and AgentDyn corpora: it reads
 * `id`, `agent_model`, `agent_family`, `suite`, `attack`, `condition`, `injections`, `surfaces`, `tools`, `messages`,
 * `injection_source`, `injection_unrecovered` and `source.format`, nothing else.
 */
import type { Trajectory } from "../../types.js";

/** Fields left out of what the worker is sent (module docstring). */
const LEFT_OUT: ReadonlySet<string> = new Set(["reference", "run_error", "injection_task_id"]);

/** The metadata keys the judge reads. */
const METADATA_READ = ["original_attack", "original_condition"] as const;

/**
 * The trajectory the worker is sent: `t` less the fields the judge does not read (module docstring), keys in `t`'s
 * order; `t` itself is not changed. The worker's verdict is the one `t` would get (its copied fields, `id`, model,
 * suite, attack, condition, surfaces and injection source, are sent).
 */
export function forWorker(t: Trajectory): Trajectory {
  if (t === null || typeof t !== "object") return t;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(t)) {
    if (LEFT_OUT.has(k)) continue;
    const v = (t as unknown as Record<string, unknown>)[k];
    if (k === "source" && v !== null && typeof v === "object") out.source = { format: (v as { format?: unknown }).format };
    else if (k === "metadata" && v !== null && typeof v === "object") {
      const m: Record<string, unknown> = {};
      for (const key of METADATA_READ) if (key in v) m[key] = (v as Record<string, unknown>)[key];
      out.metadata = m;
    } else out[k] = v;
  }
  return out as unknown as Trajectory;
}
