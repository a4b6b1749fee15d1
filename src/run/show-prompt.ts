/**
 * `label --dry-run --show-prompt ID`: the messages each judge's first request would carry for one trajectory, rendered
 * as `label` renders them (the same read, the same preparation: `./prepare.ts`; the same character budget), so a user
 * sees exactly what a judge would get before paying for it. Nothing is sent or stored. Only the messages are given:
 * no request header, so no API key, is ever part of it. A fresh nonce (the code of the structural tags around the
 * untrusted text) is drawn per conversation: label's request carries another in the same places, nothing else differs.
 */
import path from "node:path";
import type { ChatMessage } from "../providers/request-body.js";
import type { OpenAIJudge } from "../judges/llm-judge.js";
import { readTrajectories } from "../ingest/index.js";
import { UsageError } from "../errors.js";
import { keepStoredChatId, storedChatFallbackIds } from "./resume.js";
import { PreparationError, TrajectoryPreparer } from "./prepare.js";
import type { LabelOptions } from "./label-options.js";

/** One judge's first request for the trajectory: its messages, or why it has none (an offline judge sends nothing). */
export type ShownPrompt = { judge: string; model: string; messages: ChatMessage[]; truncated: boolean } | { judge: string; model: string; messages: null; reason: string };

/**
 * Render the first request of every judge of `opts` for the trajectory `id` (repeat 0), reading `opts.inputs` as label
 * would (its --where and --limit are not applied: the trajectory is asked for by id).
 * @throws UsageError when no trajectory of the inputs has that id, or it cannot be prepared (the reason given).
 */
export async function showPrompt(opts: LabelOptions, id: string): Promise<{ id: string; judges: ShownPrompt[] }> {
  const readOpts = { format: opts.format, strict: false, maxItemBytes: opts.maxItemBytes, overrides: opts.overrides, fieldMap: opts.fieldMap, securityScorer: opts.securityScorer, utilityScorer: opts.utilityScorer, labelsRoot: opts.labelsDir };
  const oldIds = await storedChatFallbackIds(path.join(opts.labelsDir, opts.run));
  const preparer = new TrajectoryPreparer(opts.inputs, readOpts);
  for await (const item of readTrajectories(opts.inputs, readOpts)) {
    if (opts.signal?.aborted) break;
    if (item.kind === "error") continue;
    const kept = oldIds.byLine.size > 0 ? keepStoredChatId(item.trajectory, oldIds) : undefined;
    if (kept !== undefined) item.trajectory.id = kept;
    if (item.trajectory.id !== id) continue;
    const prepared = await preparer.prepare(item.trajectory).catch((e: unknown) => {
      if (e instanceof PreparationError) throw new UsageError(`--show-prompt: trajectory "${id}" cannot be prepared, label would record it as an error and judge nothing: ${e.message}`);
      throw e;
    });
    const t = prepared.trajectory;
    const judges = opts.judges.map((j): ShownPrompt => {
      const oj = j as Partial<OpenAIJudge>;
      if (!oj.begin || !oj.request) return { judge: j.id, model: j.model, messages: null, reason: "this judge sends no prompt (it judges offline)" };
      const conv = oj.begin(t, { repeat: 0, budgetChars: opts.budgetChars, minQuoteChars: opts.minQuoteChars });
      return { judge: j.id, model: j.model, messages: oj.request(conv).messages, truncated: !!conv.truncated };
    });
    return { id, judges };
  }
  throw new UsageError(`--show-prompt: no trajectory of the inputs has id "${id}" (ids as label stores them: see trajectories.jsonl of a run, or ipi-judge view)`);
}

/** The text form: per judge a header line, then each message as `--- <role> ---` and its content exactly. */
export function formatShownPrompt(r: { id: string; judges: ShownPrompt[] }): string {
  const out: string[] = [];
  for (const j of r.judges) {
    out.push(`=== judge ${j.judge} (${j.model}), trajectory ${r.id}: ${j.messages ? `${j.messages.length} message(s)${j.truncated ? ", trajectory elided to the character budget" : ""}` : j.reason} ===`);
    for (const m of j.messages ?? []) out.push(`--- ${m.role} ---`, m.content);
  }
  return out.join("\n");
}
