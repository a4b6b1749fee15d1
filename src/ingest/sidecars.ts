/**
 * A corpus's sidecar files met while walking a folder (`./walk.ts`, `isSidecarName`: a manifest, a README, a
 * licence, checksums): not trajectories and not input errors. A sidecar is passed over when it holds no
 * trajectory: always for a file that is neither JSON nor a trajectory file (a `.eval` or `.traj` is always read);
 * for a `.jsonl` / `.ndjson` when detection finds no `messages` in its first lines (a manifest; one that holds
 * trajectories is read as usual); for a `.json` when reading it gives no
 * trajectory (its errors are then dropped with it). `--format` forces JSON sidecars to be read as it says. What is
 * passed over is counted and named at the end of the read, one warning of kind `passed_over` per input folder.
 *
 * A sidecar that cannot be READ (a dangling symbolic link, a link loop, no permission, an I/O error) is never passed
 * over: whatever its name, it is a `read_error` input error naming the file and the system error (nothing says it
 * holds no trajectories). {@link sidecarPlan} reads one byte of a file it would pass over unread to know that.
 *
 * An EMPTY sidecar (no bytes, or only blank lines) holds no trajectory, whatever its name or extension: it is passed
 * over like any sidecar, never an input error (an empty `manifest.jsonl` was an `invalid_json` error while an empty
 * `NOTICE` or `checksums.json` was passed over), and the note names a zero-byte one `<name> (empty)`, so that a
 * manifest emptied by a broken copy is seen. A file given by name is never a sidecar: empty, it is an input error.
 */
import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import type { IngestError } from "../types.js";
import { plan } from "./detect.js";
import { ingestError } from "./errors.js";
import { errText, EVAL_EXT, JSON_EXT, JSONL_EXT, TRAJ_EXT, type InputFile } from "./walk.js";
import type { IngestWarning } from "./warnings.js";

/** Kind of the warning that names the sidecar files passed over. */
export const PASSED_OVER = "passed_over";

/** Names shown in a `passed_over` message before "and N more". */
const SHOWN_NAMES = 8;

/**
 * Whether a sidecar file is read (a JSON file may hold trajectories) or passed over: `skip`, `read` (as any file),
 * `json` (read it, and pass it over when it gives no trajectory: see {@link jsonSidecarKept}), or `{error}` (a
 * `read_error`: the file could not be read, so it is an input error, not passed over). A file that would be passed
 * over unread (a README, a licence, checksums) has one byte read first to tell.
 */
export async function sidecarPlan(f: InputFile, forced: boolean, max: number): Promise<"skip" | "read" | "json" | { error: IngestError }> {
  // a trajectory file's own extension (`README.eval`, `notice.traj`: walked and read before sidecars were named)
  if (EVAL_EXT.test(f.file) || TRAJ_EXT.test(f.file)) return "read";
  if (JSONL_EXT.test(f.file)) {
    if (forced) return "read";
    // a read failure is plan's `error` (read as any file: the reader reports it); an empty or blank-only one (plan's
    // `invalid_json` "empty file") holds no trajectory: passed over, as an empty NOTICE is
    const p = await plan(f.file, undefined, max);
    return p.as === "unknown" || (p.as === "error" && p.error.kind === "invalid_json") ? "skip" : "read";
  }
  if (JSON_EXT.test(f.file)) return forced ? "read" : "json";
  const failed = await readFailure(f.file);
  return failed ?? "skip";
}

/**
 * Whether a JSON sidecar's read gives an item to keep (else it is passed over): a trajectory, or a `read_error`
 * (the system refused the read) or `too_large` (not read whole): either way nothing says it holds no trajectories.
 * A file that was read and is not a trajectory (`invalid_json`, `schema`, ...) is passed over.
 * @param items what reading the file gave (`readJsonFile` of ./index.ts)
 */
export function jsonSidecarKept(items: ReadonlyArray<{ kind: string; error?: IngestError }>): boolean {
  return items.some((i) => i.kind === "trajectory" || (i.kind === "error" && (i.error?.kind === "read_error" || i.error?.kind === "too_large")));
}

/** The `read_error` for a file whose first byte cannot be read (open or read fails), else undefined. Never throws. */
async function readFailure(file: string): Promise<{ error: IngestError } | undefined> {
  let fh;
  try {
    fh = await open(file, "r");
    await fh.read(Buffer.alloc(1), 0, 1, 0);
    return undefined;
  } catch (e) {
    return { error: ingestError("read_error", file, `cannot read file: ${errText(e)}`) };
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/** Whether a file has zero bytes (false when it cannot be stat'ed). Never throws. */
function isEmpty(file: string): boolean {
  try {
    return statSync(file).size === 0;
  } catch {
    return false;
  }
}

/** The sidecar files passed over in one read, per input folder. */
export class PassedOver {
  private readonly byRoot = new Map<string, string[]>();

  /** Note a sidecar passed over; a zero-byte one is named `<name> (empty)` (a stat that fails names it plainly). */
  add(f: InputFile): void {
    let names = this.byRoot.get(f.root);
    if (!names) this.byRoot.set(f.root, (names = []));
    const name = path.relative(f.root, f.file) || path.basename(f.file);
    names.push(isEmpty(f.file) ? `${name} (empty)` : name);
  }

  /** One warning per input folder: the count and the names (the first {@link SHOWN_NAMES}). */
  warnings(): IngestWarning[] {
    const out: IngestWarning[] = [];
    for (const [root, names] of this.byRoot) {
      const shown = names.slice(0, SHOWN_NAMES).join(", ") + (names.length > SHOWN_NAMES ? `, and ${names.length - SHOWN_NAMES} more` : "");
      out.push({
        kind: PASSED_OVER,
        path: root,
        message: `${root}: ${names.length} file${names.length === 1 ? "" : "s"} not trajectories, passed over (a corpus's manifest, README, licence or checksums): ${shown}`,
        count: names.length,
      });
    }
    this.byRoot.clear();
    return out;
  }
}
