/**
 * A judge's configuration in a run (issue 12, point 5): the `judge_config_sha256` its verdicts get, and the judges
 * whose stored verdicts were made under another configuration than the one given now (refused, re-judged or kept
 * by `--on-config-change`).
 */
import type { Judge } from "../judges/judge.js";
import type { RunSnapshot, RunStore } from "../store/run-store.js";
import type { VerdictLedger } from "../store/ledger.js";
import type { BatchEntry } from "./batch-types.js";
import { configDiff, judgeConfigSha256 } from "../store/config-key.js";

/**
 * A judge's stored verdicts in the run were made with another configuration than the one given now (issue 12,
 * point 5). The message names the judge, what changed and how to proceed; nothing was judged or stored.
 */
export class JudgeConfigChangedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgeConfigChangedError";
  }
}

/**
 * The `judge_config_sha256` a judge's verdicts get in a run: sha256 of its verdict-affecting configuration
 * (`Judge.verdictConfig`) and the run settings applied to it (budget, minimum quote length).
 */
export function runJudgeConfig(judge: Judge, opts: { budgetChars?: number; minQuoteChars?: number }): { sha: string; config: Record<string, unknown> } {
  const config = { ...(judge.verdictConfig ?? {}), model: judge.model, run_budget_chars: opts.budgetChars ?? null, run_min_quote_chars: opts.minQuoteChars ?? null };
  return { sha: judgeConfigSha256(config), config };
}

/**
 * The key a judge keeps in a run whose verdicts were stored before its headers and query parameters entered the key
 * (`transport`, `transportOf` of src/judges/verdict-config.ts): the key without them, when stored verdicts carry that
 * one and none carry today's, with a warning that a change of them since cannot be told. Else `cur` as it is. Without
 * this, every stored run of a judge with headers (OpenRouter's, an Azure `api-version`) would be refused once on
 * resume as "changed" when nothing changed.
 */
export function legacyTransportKey(
  store: Pick<RunStore, "storedConfigs">,
  judge: Judge,
  cur: { sha: string; config: Record<string, unknown> },
  stored?: { config_key_version?: number },
): { key: { sha: string; config: Record<string, unknown>; keyVersion: number }; warning?: string } {
  // a run whose store.json says this judge's key already holds transport (written by this build, red team 32 A: a
  // judge that had no headers then) gets no legacy reading: adding headers to it is a change
  if (cur.config.transport === undefined || (stored?.config_key_version ?? 1) >= TRANSPORT_KEY_VERSION) return { key: { ...cur, keyVersion: TRANSPORT_KEY_VERSION } };
  const { transport: _, ...config } = cur.config;
  const legacy = { sha: judgeConfigSha256(config), config };
  const storedKeys = store.storedConfigs(judge.id, judge.promptSha256);
  if (!storedKeys.some((c) => c.judge_config_sha256 === legacy.sha) || storedKeys.some((c) => c.judge_config_sha256 === cur.sha)) return { key: { ...cur, keyVersion: TRANSPORT_KEY_VERSION } };
  return {
    key: { ...legacy, keyVersion: 1 },
    warning: `judge "${judge.id}": its verdicts in this run were stored before headers and query parameters entered the configuration key; the run keeps that key (new verdicts too), so a change of headers, headers_env, query_env or the base_url query cannot be told in this run: label into a new run (--run) to have them part of the key`,
  };
}

/**
 * The version of the configuration key a run's judge entry in store.json records (`config_key_version`): 2 since
 * headers and query parameters enter it (`transport`); absent or 1: an older key ({@link legacyTransportKey}).
 */
export const TRANSPORT_KEY_VERSION = 2;

/**
 * The judges whose stored verdicts were made under another configuration, with a message for each: what changed
 * (from `store.json`'s recorded configuration, else the models the verdicts name) and how to proceed.
 */
export function configChanges(
  store: RunStore,
  judges: readonly Judge[],
  current: Map<string, { sha: string; config: Record<string, unknown> }>,
  before: RunSnapshot["judges"],
): Array<{ judge: string; message: string }> {
  const out: Array<{ judge: string; message: string }> = [];
  for (const j of judges) {
    const cur = current.get(j.id)!;
    const other = store.storedConfigs(j.id, j.promptSha256).filter((c) => c.judge_config_sha256 !== cur.sha);
    const flying = inFlightUnderOtherConfig(batchEntries(store.snapshot.extra), j.id, cur.sha);
    if (other.length === 0) {
      if (flying.length > 0) out.push({ judge: j.id, message: `judge "${j.id}": ${inFlightText(flying)}` });
      continue;
    }
    const n = other.reduce((a, c) => a + c.verdicts, 0);
    const unknown = other.filter((c) => c.judge_config_sha256 === "").reduce((a, c) => a + c.verdicts, 0);
    const models = [...new Set(other.flatMap((c) => c.models))];
    const parts: string[] = [];
    const prev = before.find((b) => b.id === j.id);
    const known = other.find((c) => c.judge_config_sha256 !== "");
    if (prev?.config && known && prev.judge_config_sha256 === known.judge_config_sha256) {
      const diff = configDiff(prev.config, cur.config);
      if (diff.length) parts.push(`changed: ${diff.join("; ")}`);
    }
    if (parts.length === 0 && models.some((m) => m !== j.model)) parts.push(`model ${models.map((m) => JSON.stringify(m)).join(", ")} -> ${JSON.stringify(j.model)}`);
    if (unknown > 0) parts.push(`${unknown} of them stored without a configuration hash (by an ipi-judge version before judge_config_sha256), so they cannot be matched to this configuration`);
    out.push({
      judge: j.id,
      message:
        `judge "${j.id}": ${n} verdict(s) in this run were made with another configuration than the one given now` +
        (parts.length ? ` (${parts.join("; ")})` : "") +
        (flying.length > 0 ? `; ${inFlightText(flying)}` : ""),
    });
  }
  return out;
}

/**
 * The Batch API chunks of a judge still in flight (sent, results not stored) that were sent under another
 * configuration than `sha` (review 27, M3: the refusal read stored verdicts only, so a chunk sent as model A and
 * finished after the configuration became model B was stored, with a warning, by a run that should have refused).
 * Chunks written by builds that recorded no configuration are not counted (nothing to compare).
 * @param batches the run's chunks ({@link batchEntries}); @param sha the judge's configuration hash now.
 */
export function inFlightUnderOtherConfig(batches: readonly BatchEntry[], judgeId: string, sha: string): BatchEntry[] {
  return batches.filter((e) => e.judge_id === judgeId && e.status !== "processed" && e.config_sha256 !== undefined && e.config_sha256 !== sha);
}

/** The Batch API chunks a run's store.json keeps (`extra.batches`), or none. */
export function batchEntries(extra: unknown): BatchEntry[] {
  const b = (extra as { batches?: unknown } | null | undefined)?.batches;
  return Array.isArray(b) ? (b as BatchEntry[]) : [];
}

/** What {@link inFlightUnderOtherConfig}'s chunks are, in words: requests, chunks, the models they were sent as. */
export function inFlightText(flying: readonly BatchEntry[]): string {
  const requests = flying.reduce((a, e) => a + e.requests, 0);
  const models = [...new Set(flying.map((e) => e.judge_model ?? "?"))].map((m) => JSON.stringify(m)).join(", ");
  return (
    `${requests} request(s) in ${flying.length} Batch API chunk(s) still in flight were written with another configuration than the one given ` +
    `now (model ${models}); under keep or rejudge, those already sent are stored under the configuration they were sent with, those not sent are dropped and judged again`
  );
}

/**
 * The error for a `label` run without `--batch` while some of its judges have Batch API chunks in flight (red team
 * 28, M2: judged online too, their items were paid twice, and the chunks' results, collected by a later `--batch`
 * run, replaced the newer online verdicts), or undefined when none has.
 * @param batches the run's chunks ({@link batchEntries}); @param judges the judges of this invocation.
 */
export function inFlightWithoutBatch(run: string, batches: readonly BatchEntry[], judges: readonly { id: string }[]): string | undefined {
  const per = judges
    .map((j) => ({ id: j.id, flying: batches.filter((e) => e.judge_id === j.id && e.status !== "processed") }))
    .filter((x) => x.flying.length > 0);
  if (per.length === 0) return undefined;
  const what = per.map((x) => `judge "${x.id}": ${x.flying.reduce((a, e) => a + e.requests, 0)} request(s) in ${x.flying.length} chunk(s)`).join("; ");
  return (
    `run "${run}" has Batch API chunks of an earlier \`label --batch\` still in flight (${what}): run label with --batch to collect them ` +
    `(judged online instead, those items would be paid twice); or label into another --run`
  );
}

/** How to proceed after a configuration change (the end of {@link JudgeConfigChangedError}'s message). */
export const CONFIG_CHANGE_HELP =
  "To proceed: --on-config-change rejudge (judge every item again under the new configuration; the old verdicts " +
  "stay in verdicts.jsonl, superseded), --on-config-change keep (keep the stored verdicts and judge only what is " +
  "missing: the run then mixes configurations), or give the judge a new id (or use a new --run) to keep both apart.";

/**
 * The judges whose current verdicts (latest per trajectory and repeat) were made with another judge prompt than the
 * one they have now (a new rubric version, or the same version with other prompt text, e.g. after an upgrade of
 * ipi-judge): the same choice as a configuration change (`--on-config-change`), since judging them again is paid
 * again. One message per judge, naming the rubric versions and prompt hashes before and now.
 */
export function promptChanges(ledger: VerdictLedger, judges: readonly Pick<Judge, "id" | "promptSha256" | "rubricVersion">[]): Array<{ judge: string; verdicts: number; message: string }> {
  const out: Array<{ judge: string; verdicts: number; message: string }> = [];
  for (const j of judges) {
    const o = ledger.otherPrompts(j.id, j.promptSha256);
    if (o.verdicts === 0) continue;
    const rubric = o.rubrics.length ? `rubric ${o.rubrics.join(", ")} -> ${j.rubricVersion ?? "?"}` : `rubric -> ${j.rubricVersion ?? "?"}`;
    const same = o.rubrics.length > 0 && o.rubrics.every((r) => r === j.rubricVersion) ? " (same rubric version, other prompt text)" : "";
    out.push({
      judge: j.id,
      verdicts: o.verdicts,
      message:
        `judge "${j.id}": ${o.verdicts} verdict(s) in this run were made with another judge prompt than the one given now: ` +
        `${rubric}${same}, prompt_sha256 ${o.prompts.map((p) => p.slice(0, 12)).join(", ")} -> ${j.promptSha256.slice(0, 12)}`,
    });
  }
  return out;
}

