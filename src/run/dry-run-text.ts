/**
 * `label --dry-run`'s result as text for the terminal (`formatDryRun`), apart from the tally (./dry-run.ts).
 */
import { whereLine } from "../store/where.js";
import { reasonsText } from "./rejudge.js";
import { dryRunCapText } from "./dry-run-cap.js";
import { FLOOR_OUTPUT_TOKENS, type DryRunResult } from "./dry-run.js";

/** A dry run as text for the terminal: one block per judge, the total, and the assumptions. */
export function formatDryRun(r: DryRunResult): string {
  const usd = (x: number | null) => (x === null ? "unknown" : x < 1 ? `$${x.toPrecision(3)}` : `$${x.toFixed(2)}`);
  const lines = [...(r.where ? [whereLine(r.where)] : []), `dry run of ${r.run}: ${r.read} trajectories read${r.where ? `, ${r.trajectories} kept by --where ${r.where.filter}${r.limit !== undefined ? ` and --limit ${r.limit}` : ""}` : ""}${r.input_errors ? `, ${r.input_errors} bad input items` : ""}${r.empty_placeholders ? `, ${r.empty_placeholders} empty placeholders skipped (not errors)` : ""}${r.duplicate_inputs ? `, read once: duplicate inputs ${r.duplicate_inputs} (not errors)` : ""}; nothing was sent or stored`];
  // the bad items by name and reason, as label writes them to errors.jsonl (hostile55 F9)
  for (const e of r.input_error_items ?? []) lines.push(`  bad input (${e.kind}): ${e.message.startsWith(e.where) ? e.message : `${e.where}: ${e.message}`}`);
  if (r.input_error_items && r.input_errors > r.input_error_items.length) lines.push(`  ... and ${r.input_errors - r.input_error_items.length} more bad input item(s): label records each in errors.jsonl`);
  if (r.reference_changed > 0)
    lines.push(
      `note: ${r.reference_changed} trajectory(ies) carry another benchmark reference (security/utility) than the run stored: label would re-write their index rows (errors.jsonl kind reference_changed) so agree/compare read the current reference; nothing is judged again for it`,
    );
  if (r.metadata_changed > 0)
    lines.push(
      `note: metadata_changed: ${r.metadata_changed} trajectory(ies) carry another model, condition, attack, suite, task, attacked or surfaces than the run stored: label would re-write their index rows (errors.jsonl kind metadata_changed) so every figure reads the new values; nothing is judged again for it`,
    );
  if (r.moved) lines.push(`note: ${r.moved} trajectories were moved or renamed (their content is stored under an id whose file is gone): label would carry their verdicts over, counted as already stored; nothing is judged again for them`);
  for (const c of r.config_changes) lines.push(`${c.on_config_change === "refuse" ? "WARNING" : "note"}: ${c.message}`);
  if (r.batches_to_poll) lines.push(`note: ${r.batches_to_poll}`);
  for (const m of r.own_output ?? []) lines.push(`note: ${m}`);
  if (r.older_rules)
    lines.push(`note: ${r.older_rules} stored verdict(s) were verified under older rules: label re-verifies those of its LLM judges from their stored findings with no judge call (no cost; not counted above), and the signature judge's are judged again offline under --on-config-change rejudge`);
  for (const j of r.judges) {
    lines.push("", `judge ${j.id} (${j.model}): ${j.requests} requests (${j.already_stored} verdicts already stored, skipped${j.awaiting_batch ? `; ${j.awaiting_batch} item(s) awaited from Batch API chunks in flight, not sent again` : ""})`);
    const builtIn = j.assumed_output_tokens_per_request === 0 && j.prompt_tokens === 0;
    if (j.rejudge.verdicts > 0)
      lines.push(
        builtIn
          ? `  judged AGAIN: ${j.may_carry?.rejudged ? `up to ${j.rejudge.verdicts} stored verdict(s), ${j.may_carry.rejudged} of them of content now stored under another id (carried over instead where its row moved)` : `${j.rejudge.verdicts} stored verdict(s)`} (${reasonsText(j.rejudge.by_reason)}); built-in judge, no cost`
          : `  judged AGAIN: ${j.may_carry?.rejudged ? "up to " : ""}${j.rejudge.verdicts} stored verdict(s) (${reasonsText(j.rejudge.by_reason)}), in the requests above; estimated ${j.may_carry?.rejudged ? "at most " : ""}${usd(j.rejudge.estimated_cost_usd)}${j.rejudge.estimated_cost_usd === null ? " (no price)" : ""} of the cost below`,
      );
    if (j.may_carry && !builtIn)
      lines.push(
        `  UPPER BOUND: ${j.may_carry.requests} of the ${j.requests} requests${j.may_carry.rejudged ? ` (${j.may_carry.rejudged} of the judged AGAIN)` : ""} are of content now stored under another id: label carries that id's verdicts over instead (no request) where its row moved (a row deleted or inserted above it), so as few as ${j.requests - j.may_carry.requests} may be sent, and the requests, tokens and cost here are at most`,
      );
    if (j.requests === 0 && j.assumed_output_tokens_per_request === 0) {
      lines.push("  built-in judge: no requests, no cost");
      continue;
    }
    const how = j.tokenizer === "estimated" ? "ESTIMATED (characters / 4: no tokenizer known for this model)" : `counted with ${j.tokenizer}`;
    lines.push(`  prompt tokens: ${j.prompt_tokens.toLocaleString("en-US")} (${how})${j.truncated ? `; ${j.truncated} requests elided to the character budget` : ""}`);
    lines.push(
      `  cacheable prefix (system message): ${j.cacheable_prefix_tokens.toLocaleString("en-US")} tokens, ${j.cacheable_share === null ? "n/a" : `${(100 * j.cacheable_share).toFixed(1)}%`} of prompt tokens`,
    );
    lines.push(
      j.observed
        ? `  output tokens per reply: ${Math.round(j.observed.output_tokens_per_request)} observed (floor and observed), ${j.assumed_output_tokens_per_request} assumed by the ceiling`
        : `  output tokens per reply: ${Math.min(FLOOR_OUTPUT_TOKENS, j.assumed_output_tokens_per_request)} by the floor (a short verdict), ${j.assumed_output_tokens_per_request} by the ceiling`,
    );
    if (j.schema_tokens_per_request) lines.push(`  response_format schema: ${j.schema_tokens_per_request} tokens per request (billed as prompt)`);
    if (j.observed)
      lines.push(
        `  observed in this run: ${j.observed.requests_per_verdict.toFixed(2)} requests per verdict, ${Math.round(j.observed.output_tokens_per_request)} output tokens per request (${j.observed.verdicts} verdicts)`,
      );
    if (j.priced_at) lines.push(j.priced_at === "batch" ? "  priced at its Batch API price (price.batch_*)" : `  UPPER BOUND: priced at the online price: its config gives no batch price (price.batch_input_per_mtok / batch_output_per_mtok), and the Batch API bills about half`);
    if (j.cost_reason) lines.push(`  estimated cost: unknown (${j.cost_reason})`);
    else
      lines.push(
        `  cost: floor ${usd(j.cost_range.floor_usd)} (no feedback turn), ceiling ${usd(j.cost_range.ceiling_usd)} (all ${j.retries} feedback turns), observed ${j.cost_range.observed_usd === null ? `n/a (${j.cost_range.observed_reason})` : usd(j.cost_range.observed_usd)}`,
      );
  }
  lines.push(
    "",
    r.estimated_cost_usd === null
      ? "estimated cost of the run: unknown (a judge has no price)"
      : `estimated cost of the run: floor ${usd(r.cost_range.floor_usd)}, ceiling ${usd(r.cost_range.ceiling_usd)}${r.cost_range.observed_usd !== null ? `, observed ${usd(r.cost_range.observed_usd)}${r.cost_range.observed_note ? ` (${r.cost_range.observed_note})` : ""}` : ""}; budget on the ceiling`,
  );
  if (r.cost_cap) lines.push(...dryRunCapText(r.cost_cap));
  lines.push("assumptions:", ...r.assumptions.map((a) => `  - ${a}`));
  return lines.join("\n");
}
