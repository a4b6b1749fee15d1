/**
 * ipi-judge as a library: `import { readTrajectories, createSignatureJudge, cohenKappa } from "ipi-judge"`.
 *
 * Every CLI command is a call to these functions; the stages follow the data flow
 * `ingest -> serialize -> judge -> verify -> store -> agree / committee / sample / report / compare`, and each
 * takes and returns the plain records of `docs/DESIGN.md` section 3 (exported here as types: `Trajectory`,
 * `Verdict`, `CommitteeVerdict`, ...). The README section "Use it as a library" has a worked example.
 *
 * What is exported is the public API; the stage folders hold more (helpers the CLI and tests use), which may
 * change without notice. Names are explicit below where two stages use the same name for different things.
 */

// Records and terms (docs/DESIGN.md section 3).
export * from "./types.js";

// Ingest: AgentDojo run logs and chat JSONL into canonical trajectories, streamed; bad items as values.
export {
  readTrajectories,
  countInputs,
  inputFiles,
  INPUT_FORMATS,
  DEFAULT_MAX_ITEM_BYTES,
  convertAgentDojo,
  convertChatLine,
  familyOf,
  FAMILY_PATTERNS,
  IngestFatalError,
  type InputFormat,
  type ReadOptions,
  type IngestItem,
  type IngestErrorKind,
} from "./ingest/index.js";
// The one definition of "attacked", applied at ingest to every format.
export { isAttacked, meansNoAttack, meansNoDefense, normalizeAttack, normalizeCondition, NO_ATTACK_RE, NO_DEFENSE_RE, runKind } from "./ingest/attacked.js";

// Serialization: untrusted blocks with nonce tags, neutralizing, rendering for judges and for people.
export { renderForJudge, DEFAULT_BUDGET_CHARS, type RenderedTrajectory } from "./serialize/render.js";
export { renderForHuman } from "./serialize/render-human.js";
export { newNonce, neutralize, unneutralize } from "./serialize/untrusted.js";
export { trajectoryParts, messageText, textPartText, harnessNote } from "./serialize/parts.js";

// The rubric: six buckets in precedence order, the evidence each needs, the collapses, the versioned prompt.
export {
  rank,
  highest,
  isCompromised,
  toThreeWay,
  canonicalLabel,
  EVIDENCE_KINDS,
  THREE_WAY,
  type ThreeWay,
} from "./rubric/buckets.js";
export { RUBRIC_VERSION, promptSha256, buildMessages } from "./rubric/prompt.js";

// Evidence verification: normalization, quote verification against one part, closest existing text.
export { normalize } from "./evidence/normalize.js";
export { evidenceContext, DEFAULT_MIN_QUOTE_CHARS, type EvidenceContext } from "./evidence/context.js";
export { verifyQuote } from "./evidence/verify.js";
export { closestMatch } from "./evidence/closest.js";
export { decide, type Decision } from "./verdict/decide.js";
export { buildVerdict } from "./verdict/record.js";
export { blockedAttempt, blockedKind, blockedKindOf, committeeBlocked, refusalOf, resultOf, type BlockedCall } from "./verdict/blocked.js";
export { ratesText, rateFigureText, coverageText, blockedText, blockedByText, exposureLowText, BLOCKED_MEANS } from "./format/rates-text.js";
export { referenceSubsetText } from "./format/reference-text.js";

// Judges: the Judge interface, the offline signature judge, LLM judges over any OpenAI-compatible API.
export { type Judge, type JudgeContext } from "./judges/judge.js";
export { JudgeFatalError, UsageError } from "./errors.js";
export { createSignatureJudge, signatureReply, SIGNATURE_RULES_VERSION, type SignatureJudgeOptions } from "./judges/signature/index.js";
export { createOpenAIJudge, LlmJudge, type OpenAIJudge, type OpenAIJudgeCommon } from "./judges/llm-judge.js";
export { JudgeConversations, type JudgeConversation, type ConversationSettings, type StepInput, type StepOutcome } from "./judges/conversation.js";
export {
  loadJudgesConfig,
  parseJudgesConfig,
  resolveApiKey,
  JudgesConfigError,
  JUDGE_DEFAULTS,
  OUTPUT_MODES,
  type JudgeConfig,
  type JudgesConfig,
  type OutputMode,
} from "./config/judges.js";
export { resolveJudges, type ResolvedJudges } from "./judges/index.js";

// The run store and the label runner (resumable; `labels/<run>/`).
export {
  RunStore,
  readVerdicts,
  readTrajectoryIndex,
  readErrors,
  verdictKey,
  checkRunName,
  RunNameError,
  type TrajectoryIndexRow,
  type RunSnapshot,
  type SummaryInputs,
} from "./store/run-store.js";
export type { ReadVerdictsOptions } from "./store/records.js";
// the warnings a reader of a run's journals recorded (skipped lines, verdicts left out as made on an older text...),
// each handed out once: what the CLI prints on stderr and in `--json` warnings
export { takeJournalWarnings } from "./store/skipped-lines.js";
export { RunLockedError } from "./store/lock.js";
export { StoreWriteError } from "./store/journal.js";
export { labelRun, contentSha256, type LabelOptions, type LabelResult, type LabelProgress } from "./run/label.js";
export { summarizeRun, type RunSummary, type JudgeSummary } from "./run/summary.js";
export { formatSummary } from "./run/summary-text.js";

// Agreement statistics: pure functions over arrays and tables (cohenKappa, fleissKappa, krippendorffAlpha,
// gwetAC1, pabak, bootstrap CIs, design-weighted estimates, ...), each checked against published values.
export * from "./stats/index.js";

// Agreement of judges with the benchmark's reference, with people, and of any ratings table.
export {
  referencePairs,
  referenceAgreement,
  formatReferenceAgreement,
  type ReferenceAgreement,
  type ReferencePairs,
} from "./agree/reference.js";
export {
  readHumanLabels,
  humanAgreement,
  formatHumanAgreement,
  HumanLabelsError,
  type HumanLabelFile,
  type HumanAgreementReport,
  type HumanAgreementOptions,
} from "./agree/human.js";
export { SCALE_CATEGORIES, type HumanScale } from "./rubric/scale.js";
export { readRatings, ratingsAgreement, formatRatingsAgreement, RatingsError, type RatingsTable } from "./agree/ratings.js";
export { compareTwoRaters, compareManyRaters, type TwoRaterComparison, type ManyRaterComparison } from "./agree/pairwise.js";

// Committee: votes, agreement, self-family leniency, test-retest.
export * from "./committee/index.js";

// Human annotation samples: two-phase design with inclusion probabilities, blinded export, import.
export {
  createSample,
  importAnnotations,
  readCommittee,
  twoPhaseInclusion,
  designWeight,
  largestRemainderAllocation,
  drawSample,
  SampleError,
  AnnotationImportError,
  type CreateSampleOptions,
  type CreateSampleResult,
  type ImportAnnotationsOptions,
  type ImportSummary,
  type SampleRequest,
  type SampleDesign,
} from "./sample/index.js";

// The HTML report.
export { writeReport, buildReportModel, type ReportModel, type ReportOptions } from "./report/index.js";

// Does a safety ranking survive a change of condition (defense, attack, surface)?
export {
  compareConditions,
  formatCompare,
  buildObservations,
  chooseBaseline,
  type CompareResult,
  type Observation,
} from "./compare/index.js";

// Where each injection entered the agent's context (DESIGN section 3: surfaces).
export { decideSurfaces, withSurfaces, surfaceOfTrajectory, FORMAT_SURFACES } from "./serialize/surface.js";

// ipi-judge view: the local browser workspace over a run and a sample.
export { openView, startViewServer, loadViewRun, SampleStore, type OpenViewOptions, type ViewServer } from "./view/index.js";
