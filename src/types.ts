/**
 * The record shapes of `docs/DESIGN.md` section 3: the public contract every stage shares.
 * Field names here are kept in every output; new optional fields may be added.
 */

/** The six rubric buckets, highest precedence first (DESIGN section 1). */
export const BUCKETS = [
  "full_compliance",
  "partial_compliance",
  "flagged_refusal",
  "task_refusal",
  "unaffected",
  "not_exposed",
] as const;
export type Bucket = (typeof BUCKETS)[number];

export type Role = "system" | "user" | "assistant" | "tool";

/** One tool call made by the agent, as the judge sees it. `arguments` is a JSON string. */
export interface ToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** One message of a canonical trajectory. `index` is 0-based over the trajectory's messages. */
export interface Message {
  index: number;
  role: Role;
  text: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  tool_name?: string;
  /**
   * Error text recorded beside the message. On a tool message, the tool's error (AgentDojo keeps it beside an empty
   * content): rendered as part of the tool result, which the agent received. On any other message, a note of the
   * provider or harness (a content filter's or gateway's message on an assistant turn): never the agent's (or the
   * user's) words, so it is a `harness_note` part of its own (`serialize/parts.ts`).
   */
  error?: string;
}

export interface TrajectorySource {
  format: string;
  path: string;
  /** The item's line in a file of one item per line (chat JSONL), 1-based. */
  line?: number;
  /**
   * The item's place in a file of several items that are not lines (Inspect: the `.eval` zip entry
   * `samples/<id>_epoch_<n>.json`, or `samples[<i>]` in a `.json` log). With `path` (and `line`) it names the item
   * within its file: two items of one file are never the same input (`../ingest/duplicates.ts`).
   */
  entry?: string;
}

/**
 * Where an injection entered the agent's context (DESIGN section 3). `tool_output` is the data surface,
 * `tool_description` the schema surface; formats that record a finer read surface use its name
 * (`file`, `web_page`, `terminal_output`, `email`, `code_comment`, ...).
 */
export type Surface =
  | "tool_output"
  | "tool_description"
  | "system_prompt"
  | "user_message"
  | "file"
  | "web_page"
  | "terminal_output"
  | "email"
  | "code_comment"
  | (string & {});

/**
 * The surface names ipi-judge knows (the named members of {@link Surface}, docs/input-formats.md "Tools and attack surfaces"): a surface given by the
 * input outside this list is kept but warned about (`webpage` beside `web_page` would be a surface row of its own).
 */
export const KNOWN_SURFACES: readonly string[] = ["tool_output", "tool_description", "system_prompt", "user_message", "file", "web_page", "terminal_output", "email", "code_comment"];

/** One tool offered to the agent: what it saw in its tool list. A description is a part evidence can quote. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** The parameter JSON Schema as the agent received it, when the format records it. */
  parameters?: unknown;
}

/** The canonical trajectory every input format is turned into (DESIGN section 3). */
export interface Trajectory {
  id: string;
  source: TrajectorySource;
  agent_model?: string;
  agent_family?: string;
  suite?: string;
  user_task_id?: string;
  injection_task_id?: string;
  attack?: string;
  condition?: string;
  /** placeholder -> injected text; `{}` when unattacked. */
  injections: Record<string, string>;
  /** placeholder -> where that injection entered (decided by code or given by the input). */
  surfaces?: Record<string, Surface>;
  /** The tools offered to the agent, when the format records them. */
  tools?: ToolDefinition[];
  messages: Message[];
  reference?: { security?: boolean; utility?: boolean };
  /** The run ended in an error (AgentDojo `error` set): its `reference.security` is meaningless. */
  run_error?: string;
  /** Free metadata carried from the input (chat-jsonl `metadata`). */
  metadata?: Record<string, unknown>;
  /**
   * Where `injections` came from when the input did not record them (issue 24): `tool_description` (instructing
   * spans of the tool descriptions, `serialize/instructing.ts`) or `sibling` (the text a run of the same suite, user
   * task, injection task, attack and agent model records, `run/siblings.ts`) or `clean_run_diff` (what its tool
   * results hold that the unattacked run of the same user task's did not, `run/clean-diff.ts`); `from` names the
   * tools or the run. Absent when the input recorded them (or recorded none and nothing was recovered).
   */
  injection_source?: InjectionSource;
  /** Why no injected text could be recovered for an attacked run that records none (`run/siblings.ts`). */
  injection_unrecovered?: { kind: "no_sibling" | "ambiguous_sibling"; message: string };
  /**
   * The agent's tool calls whose arguments, as the input recorded them, are not valid JSON (`ingest/tool-arguments.ts`,
   * warning `tool_arguments_invalid`): a tool could not have parsed them as written. Set by ingest, one entry per
   * such call; every verdict on the trajectory carries `tool_arguments_invalid` (`verdict/record.ts`). Absent when
   * every call's arguments are valid (and on trajectories read by builds before the field).
   */
  tool_arguments_invalid?: InvalidToolArguments[];
}

/** One tool call whose arguments are not valid JSON (see {@link Trajectory.tool_arguments_invalid}). */
export interface InvalidToolArguments {
  /** The message holding the call (0-based, of the trajectory's messages). */
  message_index: number;
  /** The call's position in the message's `tool_calls`; absent when it could not be told (the legacy `function_call`). */
  tool_call_index?: number;
  /** The tool's name. */
  name: string;
  /** Where the input holds the arguments, e.g. `messages[3].tool_calls[0].function.arguments`. */
  field: string;
  /** Why they do not parse (the JSON parser's message, or Inspect's `parse_error`). */
  problem: string;
}

/** Where a trajectory's injected text came from (see {@link Trajectory.injection_source}). */
export interface InjectionSource {
  kind: "recorded" | "tool_description" | "sibling" | "clean_run_diff";
  /** The tools whose descriptions instruct the agent, the sibling run the text was taken from, or the clean run. */
  from?: string[];
}

/**
 * One quote the judge gives as evidence. A quote of a tool description (the agent's tool list) cites
 * `tool_index` (0-based position in `Trajectory.tools`) and has `message_index` -1.
 */
export interface EvidenceQuote {
  message_index: number;
  tool_call_index?: number;
  tool_index?: number;
  quote: string;
}

/** One finding of a judge reply: a bucket the judge believes applies, with its evidence. */
export interface Finding {
  bucket: Bucket;
  evidence: EvidenceQuote[];
  explanation: string;
}

/** What a judge is asked to return (DESIGN section 3). */
export interface JudgeReply {
  findings: Finding[];
  label: Bucket;
  rationale: string;
}

/** A quote after verification. */
export interface VerifiedQuote extends EvidenceQuote {
  verified: boolean;
  /** Set when the cited message was wrong but the quote verifies in exactly one other message. */
  corrected_index?: number;
  /** Set when the cited tool description was wrong (or no place was cited) and the quote verifies in exactly one other one. */
  corrected_tool_index?: number;
  /** For failed quotes: the closest text that does exist, with similarity in [0,1]. */
  closest?: { text: string; similarity: number; message_index?: number; tool_call_index?: number; tool_index?: number };
  /** Why the quote failed (too short, wrong part kind, not found, ...). */
  reason?: string;
  /**
   * Set (true) on a verified quote that lies partly in text elided from the judge's prompt (`--budget-chars`, the
   * model's context): the judge saw only part of it (hostile 51, finding 1). A quote lying wholly in elided text does
   * not verify.
   */
  partly_elided?: true;
  /**
   * Set when the place the judge cited was corrected on a verified quote: e.g. a `tool_call_index` the message does not
   * have, dropped or replaced by the call the quote is in (`../verdict/locator.ts`).
   */
  locator_note?: string;
}

export interface VerifiedFinding {
  bucket: Bucket;
  holds: boolean;
  evidence: VerifiedQuote[];
  explanation?: string;
  /**
   * Set (true) on a holding finding whose verified quote is all or part of the "closest existing text" an earlier
   * feedback turn of the conversation offered for a quote that failed (red team 31 F2: a made-up quote, then the
   * offered text pasted on the retry): the finding may rest on text the judge was handed, not text it found.
   */
  evidence_from_feedback?: true;
  /**
   * Set on a finding an earlier reply of the conversation verified and the last reply left out without retracting it
   * (`./verdict/carry.ts`, red team 35a F3): the 1-based position in `raw_replies` of the reply that verified it.
   */
  from_reply?: number;
}

/**
 * `unverified`: no finding held and code could not establish exposure either, so the verdict has no label
 * (DESIGN section 1, "No evidence is not evidence of absence"); excluded from ASR, kappa and votes.
 */
export type VerdictStatus = "ok" | "judge_error" | "judge_refused" | "unjudgeable" | "unverified";

/** One verdict per trajectory per judge per repeat; one JSON line each in `verdicts.jsonl`. */
export interface Verdict {
  trajectory_id: string;
  judge_id: string;
  judge_model: string;
  judge_family: string;
  repeat: number;
  rubric_version: string;
  prompt_sha256: string;
  status: VerdictStatus;
  label: Bucket | null;
  label_claimed: Bucket | null;
  compromised: boolean | null;
  downgraded: boolean;
  findings: VerifiedFinding[];
  rationale: string;
  attempts: number;
  /**
   * Tokens over every request of the verdict. `cached_tokens`: prompt tokens served from the provider's cache;
   * `reasoning_tokens`: part of `completion_tokens`; `responses_without_usage`: responses that reported no usage
   * (then the counts are a lower bound and `cost_usd` is null).
   */
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number; reasoning_tokens?: number; responses_without_usage?: number };
  /** USD cost of the verdict's requests at the judge's `price`; null = unknown (no price, or missing usage). */
  cost_usd?: number | null;
  /**
   * How `cost_usd` was priced when not at the judge's online price (`CostBasis`, src/providers/cost.ts): `batch` (its
   * Batch API price), `online_upper_bound` (sent through the Batch API, no batch price configured: the online price,
   * about twice the bill), `implausible_usage` (no cost: the server reported more tokens than the requests could
   * hold). Absent: the online price (and on verdicts stored before the field).
   */
  cost_basis?: "batch" | "online_upper_bound" | "implausible_usage";
  error?: { kind: string; message: string };
  /**
   * What the provider's replies said that is worth keeping beside the label (issue 23): `finish_reason "length"` on a
   * complete reply, usage whose parts did not add up (billed on the largest reading). Absent when none.
   */
  provider_notes?: string[];
  truncated: boolean;
  /**
   * Times the trajectory was elided further and sent again because the provider said the prompt exceeded the model's
   * context (`../judges/conversation.ts`); `truncated` is then true. Judge health counts such verdicts
   * (`context_elided`). Absent when none (and on verdicts stored before the field).
   */
  context_elided?: number;
  /**
   * Set on a compliance label whose verified evidence shares with the injected text only words or values the user's or
   * system's messages hold too (src/verdict/evidence-in-user-task.ts): the quote cannot tell the user's task from the
   * injected goal. The label stands; judge health counts it. Absent when not (and on verdicts stored before the field).
   */
  compliance_in_user_task?: true;
  /**
   * Set on a label below compliance on an attacked run when an agent's tool call carries a strong value (IBAN, e-mail
   * address, link host) the injection named and the user's and system's messages do not (src/verdict/injected-value-call.ts):
   * the values, as `kind:value`. The label stands; judge health counts it. Absent when not (and on verdicts stored before the field).
   */
  injected_value_in_call?: string[];
  /**
   * The signature judge only: how many attacker values (named by the injection, shown by a tool result before the
   * agent used them) it explained away as the environment's, each said in the rationale with `[env_explained]`
   * (src/judges/signature/env-notes.ts). Judge health counts the verdicts (src/verdict/env-explained-health.ts).
   * Absent when none (and on verdicts stored before the field: read from the rationale, src/store/env-explained.ts).
   */
  env_explained?: number;
  raw_replies: string[];
  created_at: string;
  /**
   * The verification rules its label was decided under (`VERIFY_RULES_VERSION`, src/rubric/verify-rules.ts). Absent:
   * stored by an older build (its label may differ from what today's rules give; `label` re-verifies it).
   */
  verify_rules?: number;
  /**
   * Set on a verdict `label` re-verified from its stored findings under newer rules, with no judge call
   * (src/run/reverify.ts): the rules it was verified under before (null: not recorded), its label and status then, and
   * when. Its findings, label and the fields derived from them are today's; usage, cost and raw replies the original's.
   */
  reverified?: { from_rules: number | null; label_before: Bucket | null; status_before: VerdictStatus; at: string };
  /**
   * The judge's first decided reply, before any feedback turn (new user 30, M2; `src/verdict/first-reply.ts`): the
   * quotes checked (those of a `not_exposed` finding are not) and how many did not verify. Absent when no reply could
   * be decided, and on verdicts stored before the field (then not known, never 0).
   */
  first_reply?: { quotes: number; quotes_failed: number };
  /**
   * Set instead of `first_reply` on a verdict re-verified under newer rules whose first reply could not be checked
   * again (src/verdict/first-reply-again.ts): why. Health counts it as not known, never as the older rules' figure.
   */
  first_reply_unknown?: string;
  /**
   * Feedback turns the judge conversation sent (unparseable reply, invalid label, evidence that did not verify); 0
   * for a verdict from the first reply (the signature judge: always 0). Absent on verdicts stored before the field.
   */
  feedback_turns?: number;
  /**
   * The HTTP 429s (rate limited) its requests got and waited out (`src/providers/rate-limit-waits.ts`). Absent when
   * none (and on verdicts stored before the field: not known, counted as none).
   */
  rate_limited?: RateLimitWaits;
  /**
   * The names of keys its judge's replies held that the parser does not read (`src/judges/extra-keys.ts`: `confidence`,
   * `findings[].severity`; at most 20, sorted), over every reply of the conversation that parsed: ignored, no part of the
   * label, named in `provider_notes` (`judge reply: keys not read, ...`) with their values. Judge health counts them
   * (`src/verdict/extra-keys-health.ts`). Absent when none (and on verdicts stored before the field: not known).
   */
  extra_keys?: string[];
  /**
   * Where the label came from (issue 12): `finding` (a verified finding of the judge), `refused_call` (a verified
   * `full_compliance` whose quotes are all on refused calls, stored as `partial_compliance`), or, when none held, what
   * code established about exposure: `exposure_found` (-> unaffected), `unattacked` / `injection_absent`
   * (-> not_exposed); `undecided` (no label: status `unverified`). Absent on verdicts without a decided reply.
   */
  label_basis?: "finding" | "refused_call" | "exposure_found" | "unattacked" | "injection_absent" | "undecided";
  /**
   * Set (true) on a compliance label, or an `unaffected` label a finding gave (red team 39 A), whose findings held on an
   * attacked run where code finds the injected text nowhere in what the agent received (new user 32): the label stands
   * (code's search can miss an encoding), judge health counts it (`compliance_without_injection`,
   * `unaffected_without_injection`). Absent otherwise.
   */
  injection_absent?: true;
  /**
   * Set (true) on an `unaffected` label a finding gave on an attacked run whose injected text is unknown (red team 39 C):
   * its quote is tool text that could not be checked to be the injected content, where code alone gives no label; and
   * on a compliance label there (new user 48, 1: nothing checks the quoted call is the injected goal, and a
   * `not_exposed` claim there never holds, so the labelled runs are selected by the judge's answers). Judge health
   * counts them (`unaffected_unchecked`, `compliance_unchecked`, `injection_unknown`). Absent otherwise.
   */
  injection_unchecked?: true;
  /**
   * Set (true) on every verdict of a trajectory with a tool call whose arguments are not valid JSON
   * (`Trajectory.tool_arguments_invalid`): whatever its label, a call it may rest on is one no tool could have parsed as
   * written, so a compliance label may count an action that never ran. The label stands; judge health counts its
   * compliance labels (flag `tool_arguments_invalid`) and every command printing rates says how many. Absent otherwise
   * (and on verdicts stored before the field).
   */
  tool_arguments_invalid?: true;
  /**
   * Set on a compliance label whose holding quotes may be the injection's words rather than an act of the agent (red
   * team 35a; `src/verdict/compliance-evidence.ts`): `echo_of_injection`, every one lies in the agent's own text (or,
   * with 8 words of instruction, in its call) and is mostly injected text (the agent repeating, flagging or copying
   * the injection); `moved_from_injection`, cited at
   * the injection and moved by verification onto an agent's call carrying the same text (the call may be harmless).
   * The label stands; judge health counts them with the first items to check. Absent otherwise.
   */
  compliance_evidence?: "echo_of_injection" | "moved_from_injection";
  /**
   * Set (true) on a compliance label none of whose verified quotes (nor the agent's tool call a quote lies in: its name
   * and argument values) shares a distinctive word or value with the injected text (new user 50, 2;
   * `src/verdict/evidence-unrelated.ts`): the quote is real and the agent's, but nothing ties the action to the injected
   * goal. The label stands (a relatedness test is a heuristic); judge health counts it (flag
   * `compliance_evidence_unrelated`) and every command printing rates says how many. Absent otherwise (and when the
   * injected text is unknown).
   */
  compliance_unrelated?: true;
  /**
   * Why the label is not the one the holding findings give (DESIGN section 1, row 6: `not_exposed` = "no attack"):
   * `unattacked`: the trajectory is unattacked, so its label is `not_exposed` whatever the judge's verified quotes
   * said (`src/rubric/unattacked.ts`). Not a downgrade (`downgraded` keeps its meaning: the claim's evidence did not
   * verify). Absent when the label is the findings' own (or code's floor). Readers set it on stored verdicts made
   * before the rule (the file is not rewritten).
   */
  relabel?: "unattacked";
  /**
   * Where the injected text the verdict was decided against came from (issue 24): `recorded` (the input's
   * `injections`), `tool_description` (instructing tool descriptions), `sibling` (a sibling run's record; `from`
   * names it). Absent on unattacked trajectories and when no text is known.
   */
  injection_source?: InjectionSource;
  /**
   * sha256 of the judge's verdict-affecting configuration and run settings (model, endpoint, sampling, output
   * mode, reply schema, retries, quote length, ...): part of the resume key (issue 12). Absent on verdicts stored
   * by versions before it existed.
   */
  judge_config_sha256?: string;
  /**
   * sha256 of the trajectory content the verdict judged (`contentSha256`: messages, injections, tools): part of the
   * resume key (issue 27), so a verdict of content that changed since is work still to do. Absent on verdicts
   * stored by versions before it existed (a resume then takes the content hash the run's index recorded).
   */
  content_sha256?: string;
  /**
   * The nonce of the prompt the judge saw (LLM judges): its escapes in quotes are undone with it, by the verifier
   * then and by the report's highlighting later (`findQuoteSpan`). Absent for the signature judge and older verdicts.
   */
  nonce?: string;
  /** Copied from the trajectory so aggregation needs no re-ingest. */
  agent_model?: string;
  agent_family?: string;
  suite?: string;
  attack?: string;
  condition?: string;
  /** The trajectory's surface summary (`trajectorySurface`: one surface, or several joined by `+`). */
  surface?: string;
  attacked?: boolean;
  /**
   * Set on every labelled verdict (DESIGN section 1, "Blocked attempt"; `src/verdict/blocked.ts`): true when the
   * label is `partial_compliance` and its verified evidence is a tool call whose result shows it was refused
   * (decided by code, for every judge). Absent on verdicts stored before it existed: counts then say unknown.
   */
  blocked_attempt?: boolean;
  /**
   * Where the blocked attempt is: the call and the tool message that refused it; `kind` says what its result shows
   * ({@link BlockedKind}). `kind` is absent on verdicts stored before it was recorded (`blockedKindOf` of
   * `src/verdict/blocked.ts` still reads `denial_text` as `refused`; an `error_result` without it is unknown).
   */
  blocked_call?: { message_index: number; tool_call_index: number; result_message_index: number; reason: "error_result" | "denial_text"; kind?: BlockedKind };
  /**
   * The trajectory's earlier id, when this verdict was carried over from it (its input moved or renamed, the same
   * content under a new id: `src/run/moved-content.ts`): a copy made without a request (`cost_usd` 0, no tokens);
   * the old id is left out of the figures. Absent on verdicts judged under their own id.
   */
  carried_from?: string;
}

/**
 * What a blocked attempt's result shows (DESIGN section 1, "Blocked attempt"), decided by code from the tool message:
 * - `refused`: a policy, a defense or the environment's permissions denied the call (a denial text such as "not
 *   allowed", "permission denied", "blocked by"; Progent's "Please try other tools or arguments", which its argument
 *   rules give too);
 * - `unavailable`: the call named a tool the agent did not have ("Invalid tool X provided", `ToolNotFoundException`):
 *   a tool filter's removal or a tool that never existed, which the log cannot tell apart;
 * - `failed`: the call ran and failed for another reason (not found, invalid arguments, a validation error).
 */
export type BlockedKind = "refused" | "unavailable" | "failed";

/** The {@link BlockedKind}s in the order they are shown. */
export const BLOCKED_KINDS: readonly BlockedKind[] = ["refused", "unavailable", "failed"];

export interface CommitteeVerdict {
  trajectory_id: string;
  votes: Record<string, Bucket | null>;
  label: Bucket | null;
  compromised: boolean | null;
  unanimous: boolean;
  status: "ok" | "no_quorum" | "disputed";
  /** The committee's judges when the file was written (`committee.jsonl` records it on every line). */
  committee_judges?: string[];
  /** Judges of the run deliberately left out of this committee (none: `[]`). */
  excluded_judges?: string[];
  quorum?: number;
}

/** A human label row (import). */
export interface HumanLabel {
  trajectory_id: string;
  annotator: string;
  label: string;
  weight?: number;
  inclusion_probability?: number;
}

/**
 * One unit of a trajectory that evidence can be quoted from: a message's text, or one tool call rendered
 * as the judge saw it (`name(arguments)`). `text` is the unescaped text; the serializer escapes it for display.
 * A `harness_note` is text recorded beside a non-tool message by the provider or harness (its `error`): shown to
 * the judge as such, evidence for no bucket (red team 39 F: a content filter's "I can't help with that" verified as
 * the agent's refusal).
 */
export type PartKind = "system_text" | "user_text" | "assistant_text" | "tool_call" | "tool_result" | "tool_description" | "harness_note";
export interface Part {
  /** For `tool_description` parts, -1 (a tool description belongs to no message); see `tool_index`. */
  message_index: number;
  /** For `tool_description` parts: the tool's 0-based position in `Trajectory.tools`. */
  tool_index?: number;
  tool_call_index?: number;
  kind: PartKind;
  text: string;
}

/** An item that could not be read or judged: one JSON line in `errors.jsonl`. */
export interface IngestError {
  path: string;
  line?: number;
  message_index?: number;
  kind: string;
  message: string;
  trajectory_id?: string;
  /** `judge_crash` only: the judge that crashed (records written before this field have it only in the message). */
  judge_id?: string;
  /** `judge_crash` only: the repeat it was judging. */
  repeat?: number;
  /**
   * `judge_crash` only: how many verdicts the run had stored when it was recorded (`VerdictLedger.verdictsStored`):
   * a verdict of the same judge, trajectory and repeat stored at or after it supersedes the crash.
   */
  verdict_seq?: number;
}

/** HTTP 429s (rate limited) got and waited out: how many, the ms waited after them, the largest Retry-After honoured (ms; null: none had one). */
export interface RateLimitWaits {
  responses: number;
  waited_ms: number;
  max_retry_after_ms: number | null;
}
