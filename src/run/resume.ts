/**
 * What makes a label run resumable: the content hash of a trajectory, its row in the run's index
 * (`trajectories.jsonl`), the resume key of each verdict and the repeats still to judge (with why), and the chat-JSONL ids a
 * run stored under an older id rule. Shared by `labelRun` (`./label.ts`) and `label --dry-run` (`./dry-run.ts`).
 */
import fs from "node:fs";
import path from "node:path";
import type { Judge } from "../judges/judge.js";
import { chatFallbackIdPath } from "../ingest/index.js";
import type { Surface, Trajectory } from "../types.js";
import { contentSha256 } from "../io/hash.js";
import { isAttacked } from "../verdict/exposure.js";
import { decideSurfaces, surfaceOfTrajectory } from "../serialize/surface.js";
import { readTrajectoryIndex, verdictKey, type TrajectoryIndexRow } from "../store/run-store.js";
import { FEEDBACK_REFUSED, isJudged, type StoredVerdictInfo, type VerdictLedger } from "../store/ledger.js";

/** Re-exported: the hash moved to `io/hash.ts` so the stages after `run/` need not import `run/`. */
export { contentSha256 };

/** Chat-JSONL fallback ids (`<file>:<line>`) a run stored, by resolved file and line; and every stored id. */
export interface StoredChatIds {
  byLine: Map<string, string>;
  ids: Set<string>;
  /**
   * by line number: the fallback ids stored from a relative path (normalized, `/`-separated, leading `./` and `../`
   * taken off) with their content hash: the same line read from another directory (red team 37 F2)
   */
  relative?: Map<number, Array<{ tail: string; id: string; sha: string }>>;
}

/**
 * Read the chat-JSONL fallback ids a run stored (any id rule, old or new), for {@link keepStoredChatId}. Stored
 * `source.path`s are resolved against the current directory.
 * @returns empty maps when the run has no index yet.
 */
export async function storedChatFallbackIds(runDir: string): Promise<StoredChatIds> {
  const out: StoredChatIds = { byLine: new Map(), ids: new Set() };
  if (!fs.existsSync(path.join(runDir, "trajectories.jsonl"))) return out;
  // a run without a chat-JSONL row (its journal never says "chat-jsonl") has no such id: nothing parsed (issue 26: a
  // resume of 1,000,000 AgentDojo rows read them all again here); `ids` is only consulted beside a `byLine` hit
  if (!(await fileHas(path.join(runDir, "trajectories.jsonl"), "chat-jsonl"))) return out;
  for (const r of (await readTrajectoryIndex(runDir, { keepRemoved: true })).values()) {
    out.ids.add(r.id);
    const src = r.source as { format?: string; path?: unknown; line?: unknown } | undefined;
    if (src?.format === "chat-jsonl" && typeof src.path === "string" && typeof src.line === "number" && r.id.endsWith(`:${src.line}`)) {
      out.byLine.set(`${path.resolve(src.path)}\0${src.line}`, r.id);
      if (!path.isAbsolute(src.path) && typeof r.content_sha256 === "string") {
        const tail = path.normalize(src.path).split(path.sep).filter((p, i, a) => p !== "." && !(p === ".." && a.slice(0, i).every((q) => q === ".."))).join("/");
        const at = (out.relative ??= new Map()).get(src.line);
        if (at) at.push({ tail, id: r.id, sha: r.content_sha256 });
        else out.relative.set(src.line, [{ tail, id: r.id, sha: r.content_sha256 }]);
      }
    }
  }
  return out;
}

/** Whether a file's bytes contain `needle` (ASCII), streamed in chunks (a match across two chunks is found). */
async function fileHas(file: string, needle: string): Promise<boolean> {
  const n = Buffer.from(needle);
  let tail = Buffer.alloc(0);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
    const b = Buffer.concat([tail, chunk as Buffer]);
    if (b.includes(n)) return true;
    tail = b.subarray(Math.max(0, b.length - n.length + 1));
  }
  return false;
}

/**
 * The id a run already stored for a chat-JSONL line without an id of its own, when it differs from the id the
 * current rule gives (`chatFallbackIdPath`: relative to the current directory; the older rule made it relative to
 * the folder common to all inputs, so `data.jsonl:1` became `x/data.jsonl:1` when another input was added; and a
 * run labelled from another directory stored it relative to that one: {@link fromOtherDirectory}). Using
 * the stored id keeps a resumed run from judging, paying for and counting the same line twice.
 * @returns the stored id, or undefined (the line has its own id, is stored under the current id, or is new).
 */
export function keepStoredChatId(t: Trajectory, stored: StoredChatIds): string | undefined {
  if (t.source.format !== "chat-jsonl" || t.source.line === undefined) return undefined;
  if (t.id !== `${chatFallbackIdPath(t.source.path)}:${t.source.line}`) return undefined;
  if (stored.ids.has(t.id)) return undefined;
  const prev = stored.byLine.get(`${path.resolve(t.source.path)}\0${t.source.line}`);
  if (prev !== undefined) return prev !== t.id ? prev : undefined;
  return fromOtherDirectory(t, stored);
}

/**
 * The id a run stored for this line when it was labelled from another directory (red team 37 F2: the same 20 lines
 * resumed from the parent directory were judged and counted again, 10/20 -> 20/40): a fallback id stored from a
 * relative path that is a tail of this file's path now, at the same line, with the same content hash.
 */
function fromOtherDirectory(t: Trajectory, stored: StoredChatIds): string | undefined {
  const cands = stored.relative?.get(t.source.line!);
  if (!cands) return undefined;
  const abs = path.resolve(t.source.path).split(path.sep).join("/");
  let sha: string | undefined;
  for (const c of cands) {
    if (c.id === t.id || !(abs === c.tail || abs.endsWith(`/${c.tail}`))) continue;
    sha ??= contentSha256(t);
    if (c.sha === sha) return c.id;
  }
  return undefined;
}

/**
 * The run-index row `label` stores for a trajectory (one line of `trajectories.jsonl`).
 * @param surfaces the trajectory's surfaces by placeholder (default: `decideSurfaces(t).surfaces`, input-given
 *   surfaces kept); the row carries them and their one-value summary `surface` (`surfaceOfTrajectory`).
 */
export function indexRow(t: Trajectory, surfaces: Record<string, Surface> = decideSurfaces(t).surfaces): TrajectoryIndexRow {
  const surface = surfaceOfTrajectory(t, surfaces);
  return {
    id: t.id,
    source: t.source,
    agent_model: t.agent_model,
    agent_family: t.agent_family,
    suite: t.suite,
    user_task_id: t.user_task_id,
    injection_task_id: t.injection_task_id,
    attack: t.attack,
    condition: t.condition,
    ...(Object.keys(surfaces).length > 0 ? { surfaces } : {}),
    ...(surface !== undefined ? { surface } : {}),
    attacked: isAttacked(t),
    reference: t.reference,
    run_error: t.run_error,
    n_messages: t.messages.length,
    content_sha256: contentSha256(t),
    metadata: t.metadata,
    // the folder holding the model folder, top-level for the summaries (../store/records.ts `run_folder`)
    ...(typeof t.metadata?.run_folder === "string" ? { run_folder: t.metadata.run_folder } : {}),
  };
}

/** The resume key of one verdict a judge would make on a trajectory (what `RunStore.has` looks up). */
export function resumeKey(t: Trajectory, judge: Judge, repeat: number, judgeConfigSha256: string): string {
  return verdictKey({ trajectory_id: t.id, judge_id: judge.id, repeat, prompt_sha256: judge.promptSha256, judge_config_sha256: judgeConfigSha256 });
}

/**
 * Why a stored verdict is judged again (issue 22 item 8: said, counted by reason, before it is paid):
 * - `prompt_changed`: made with another prompt (another rubric version or prompt files);
 * - `config_changed`: made under another judge configuration (`--on-config-change rejudge`; none recorded counts);
 * - `content_changed`: made on other content than the trajectory's now (issue 27: a verdict belongs to the content
 *   it judged);
 * - `content_unknown`: stored without a content hash (older versions) while the run's index recorded several
 *   contents for the trajectory, so which one it judged is unknown;
 * - `interrupted`: a conversation the run's stop cut short (stored as the record of what was paid);
 * - `judge_error_retried`: a judge error, judged again under `--retry-errors`;
 * - `judge_refused_retried`: a judge's refusal, judged again under `--retry-refusals`;
 * - `feedback_refused_retried`: an `ok` verdict whose feedback turn the judge refused (its label the decision that turn
 *   was to check: `../store/ledger.ts` FEEDBACK_REFUSED), judged again under `--retry-refusals`.
 */
export type RejudgeReason = "prompt_changed" | "config_changed" | "content_changed" | "content_unknown" | "interrupted" | "judge_error_retried" | "judge_refused_retried" | "feedback_refused_retried";

/** The reasons in the order they are checked (the first that applies names a verdict) and printed. */
export const REJUDGE_REASONS: readonly RejudgeReason[] = ["prompt_changed", "config_changed", "content_changed", "content_unknown", "interrupted", "judge_error_retried", "judge_refused_retried", "feedback_refused_retried"];

/** One repeat still to judge: never judged (`new`), or a stored verdict judged again, with the reason and that verdict. */
export type RepeatPlan = { repeat: number; reason: "new" } | { repeat: number; reason: RejudgeReason; stored: StoredVerdictInfo };

/**
 * The repeats of a trajectory a judge still has to judge, each with why. A repeat is done when the latest stored
 * verdict of (trajectory, judge, repeat) was made with the judge's prompt, under its configuration (any
 * prompt and configuration with `--on-config-change keep`), on the trajectory's content now, and ended as a verdict
 * (`isJudged`). Shared by `labelRun` and `label --dry-run` (`./dry-run.ts`) so both judge, skip and count alike.
 * @param contentSha256 the trajectory's `contentSha256` now.
 * @returns the repeats to judge, in order; the others are skipped.
 */
export function planRepeats(
  t: Pick<Trajectory, "id">,
  contentSha256: string,
  judge: Pick<Judge, "id" | "promptSha256">,
  repeats: number,
  ledger: VerdictLedger,
  opts: { configSha: string; onConfigChange: "refuse" | "rejudge" | "keep"; retryErrors?: boolean; retryRefusals?: boolean },
): RepeatPlan[] {
  const out: RepeatPlan[] = [];
  for (let r = 0; r < repeats; r++) {
    const stored = ledger.latestOf(t.id, judge.id, r);
    if (!stored) {
      out.push({ repeat: r, reason: "new" });
      continue;
    }
    const content = ledger.contentOf(stored, t.id);
    const reason: RejudgeReason | null =
      opts.onConfigChange !== "keep" && stored.prompt_sha256 !== judge.promptSha256
        ? "prompt_changed"
        : opts.onConfigChange !== "keep" && stored.judge_config_sha256 !== opts.configSha
          ? "config_changed"
          : content === null
            ? "content_unknown"
            : content !== contentSha256
              ? "content_changed"
              : stored.status === "interrupted"
                ? "interrupted"
                : !isJudged(stored.status, !!opts.retryErrors, !!opts.retryRefusals)
                  ? stored.status === "judge_refused"
                    ? "judge_refused_retried"
                    : stored.status === FEEDBACK_REFUSED
                      ? "feedback_refused_retried"
                      : "judge_error_retried"
                  : null;
    if (reason) out.push({ repeat: r, reason, stored });
  }
  return out;
}
