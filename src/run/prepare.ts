/**
 * The trajectory a `label` invocation judges, made from what the input gave, in one place for `label`, its
 * re-judge count (`./rejudge.ts`) and `label --dry-run`: so the three agree on every content hash, surface and
 * `--where` decision (a hash computed on another form of the same trajectory would count it "changed").
 *
 * Steps: injected text the input does not record is recovered (instructing tool descriptions,
 * `serialize/instructing.ts`; else sibling runs, `./siblings.ts`, whose index is built by one more read of the
 * inputs the first time a trajectory needs it); each injection's surface is decided (`serialize/surface.ts`); the
 * index row (`./resume.ts` `indexRow`, with `content_sha256`) is made from the result.
 */
import type { ReadOptions } from "../ingest/index.js";
import { withInstructingDescriptions } from "../serialize/instructing.js";
import { decideSurfaces } from "../serialize/surface.js";
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { IngestError, Trajectory } from "../types.js";
import { indexRow } from "./resume.js";
import { buildSiblingIndex, needsSibling, type SiblingIndex } from "./siblings.js";

/** One prepared trajectory: what is judged, its index row, and the surface mismatches found on the way. */
export interface PreparedTrajectory {
  trajectory: Trajectory;
  row: TrajectoryIndexRow;
  /** Input-given surfaces that disagree with where code finds the injection (one message each). */
  surfaceWarnings: string[];
  /**
   * True when the trajectory records no injected text of its own (`needsSibling`): what is judged then depends on
   * other input files (sibling runs, the clean run), so its file is never stamped for the resume fast path.
   */
  external?: boolean;
}

/**
 * A trajectory that could not be prepared (a fault of ipi-judge's on that input, e.g. a stack overflow in a detector):
 * `error` is its `prepare_failed` item error, naming the trajectory, its file, line or entry, and the fault. The
 * callers record it, pass the item over and go on (every verdict already paid for kept); `--strict` stops on it.
 */
export class PreparationError extends Error {
  constructor(
    public readonly error: IngestError,
    options?: { cause?: unknown },
  ) {
    super(error.message, options);
    this.name = "PreparationError";
  }
}

/**
 * Prepares the trajectories of one set of inputs (module docstring). Holds the sibling index once built, so the
 * extra read is paid at most once per preparer; share one preparer between the passes of an invocation.
 */
export class TrajectoryPreparer {
  private siblings: Promise<SiblingIndex> | undefined;

  /**
   * @param inputs the same input paths the trajectories are read from (the sibling index reads them again).
   * @param read the same read options (format, overrides, ...); its warnings are not repeated by the sibling read.
   */
  constructor(
    private readonly inputs: string[],
    private readonly read: ReadOptions,
  ) {}

  /**
   * @param raw a trajectory as `readTrajectories` gave it (not modified).
   * @returns the trajectory to judge, its index row and surface warnings.
   * @throws PreparationError when a step throws on this trajectory: the item's error, the fault as `cause` (a bare
   *   "Maximum call stack size exceeded" named no file, and stopped the whole run: red teams 41 and 42).
   */
  async prepare(raw: Trajectory): Promise<PreparedTrajectory> {
    try {
      return await this.prepareOne(raw);
    } catch (e) {
      const src = raw.source;
      const at = src ? `${src.path}${src.line !== undefined ? `:${src.line}` : ""}${src.entry !== undefined ? ` (${src.entry})` : ""}` : "its input";
      const fault = (e instanceof Error ? e.message : String(e)).slice(0, 500);
      throw new PreparationError(
        {
          path: src?.path ?? "",
          ...(src?.line !== undefined ? { line: src.line } : {}),
          trajectory_id: raw.id,
          kind: "prepare_failed",
          message: `preparing trajectory ${JSON.stringify(raw.id)} of ${at} failed: ${fault}; it is not judged (a fault of ipi-judge on this input: please report it with the file); the other trajectories are`,
        },
        { cause: e },
      );
    }
  }

  private async prepareOne(raw: Trajectory): Promise<PreparedTrajectory> {
    let t = withInstructingDescriptions(raw);
    const external = needsSibling(t);
    if (external) t = (await (this.siblings ??= buildSiblingIndex(this.inputs, this.read))).recover(t);
    const sd = decideSurfaces(t);
    const judged = Object.keys(sd.surfaces).length > 0 ? { ...t, surfaces: sd.surfaces } : t;
    return { trajectory: judged, row: indexRow(judged, sd.surfaces), surfaceWarnings: sd.warnings, ...(external ? { external } : {}) };
  }
}
