/**
 * The options of a read (`readTrajectories`, `countInputs` of ./index.ts), apart from the reader so that
 * the reader's file stays within the size limit.
 */
import type { IdSlots, Interner } from "../store/compact.js";
import type { MappableField } from "./chat-jsonl.js";
import type { InputFormat } from "./detect.js";
import type { IngestWarning } from "./warnings.js";

/** Options of `readTrajectories` and `countInputs` (./index.ts). */
export interface ReadOptions {
  /** Read every file as this format instead of detecting it (CLI `--format`). Default: detect per file. */
  format?: InputFormat;
  /** Throw an `IngestFatalError` on the first error instead of yielding it. Default false. */
  strict?: boolean;
  /**
   * The largest item read, in bytes: an AgentDojo file (from its size, before reading it) or a chat-jsonl line
   * (while streaming it: never more than this plus one chunk in memory). A larger item is one `too_large` error
   * naming its size and the limit. Bounds the memory one trajectory can take here and in the judges (a 100 MB
   * tool result is an error, not an out-of-memory crash). Default `DEFAULT_MAX_ITEM_BYTES` (64 MiB);
   * `Infinity` for no limit (text beyond one JavaScript string, ~512 Mi UTF-16 units, is still `too_large`).
   */
  maxItemBytes?: number;
  /**
   * Called at the end of the read with each aggregated warning (a guessed model or defense, runs without a
   * verdict, ...): one per kind and folder or file, with the count of items it concerns (./warnings.ts).
   */
  onWarning?: (w: IngestWarning) => void;
  /**
   * Called with each sidecar file passed over (its path as walked: the input folder joined with its relative path),
   * as it is met; the `passed_over` warning names only the first few. `label` uses it to tell an earlier
   * invocation's input error about the same file superseded (`../run/superseded-errors.ts`).
   */
  onPassedOver?: (file: string) => void;
  /**
   * Given, when the read starts, the test of whether it has met an id (a trajectory or a file taken as unchanged),
   * by slot of `ids`: what the run's `input_removed` check reads after the read (`../run/removed-inputs.ts`),
   * without a lookup of its own per item.
   */
  onMetSlots?: (met: (slot: number) => boolean) => void;
  /**
   * Whether the run being resumed holds a trajectory read from a file (resolved path): a file reached under two
   * input paths through a symbolic link is read under the name the run holds (`./same-files.ts` `preferHeld`), so
   * the order of the input paths does not give it a second id.
   */
  heldFile?: (file: string) => boolean;
  /**
   * Values that replace what the input says, for every trajectory read (CLI `label --model`, `--condition`,
   * `--attack`): for corpora whose folders or metadata name them wrongly or not at all. `agent_family` follows
   * `agent_model`. The value read is kept in `metadata.original_<field>` when it differs.
   */
  overrides?: { agent_model?: string; condition?: string; attack?: string };
  /**
   * chat-jsonl: input key (top-level or in `metadata`) -> canonical field (`agent_model`, `condition`, `attack`,
   * `security`, ...; CLI `--field key=field`, parsed by `parseFieldMap`), tried before the common spellings
   * (`FIELD_ALIASES`).
   */
  fieldMap?: Readonly<Record<string, MappableField>>;
  /** Inspect logs: the scorer whose value is the benchmark's injection verdict (`--security-scorer NAME[.key]`). */
  securityScorer?: string;
  /** Inspect logs: the scorer whose value is the user task's success (`--utility-scorer NAME[.key]`). */
  utilityScorer?: string;
  /**
   * The exact id table (`IdSlots`) the read's duplicate checks number trajectory ids with: pass the run store's
   * (`RunStore.idSlots`) so that a label run holds each id once (issue 26). Default: a new one per read.
   */
  ids?: IdSlots;
  /**
   * Where the read's duplicate checks intern the folders of the paths they hold: pass the run store's
   * (`RunStore.internedStrings`, which holds the folders of the stored rows' sources) so that a folder is held once
   * (issue 26: ~200,000 folders at a million runs). Default: the read's own.
   */
  folders?: Interner;
  /**
   * Hold each trajectory's own warnings on its item (`IngestItem.warnings`) instead of aggregating them: the consumer
   * aggregates those of the items it keeps (`label --where`: a folder the filter leaves out is not warned about,
   * fixM 3). An item that turns out a duplicate (an error) has its warnings aggregated here as without the option.
   */
  holdItemWarnings?: boolean;
  /**
   * The `--labels-dir` folder of the invocation reading (where it writes its runs): passed over, whole, where a walked
   * input folder holds it (`./own-folders.ts`; label run and annotation sample folders are passed over without it).
   */
  labelsRoot?: string;
}
