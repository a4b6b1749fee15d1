/**
 * What `label` says when a second Ctrl-C or SIGTERM quits it at once (`./label.ts`): on stderr what is kept, and with
 * `--json` the same `{"error": {"kind": "interrupted"}}` object a stop before reading prints (`./json-error.ts`), so a
 * script reading stdout gets JSON (break54 finding 6: stdout was empty). Pending journal lines are written by the
 * process's exit (`../store/journal.ts`).
 */
import { EXIT } from "../errors.js";
import { stdoutWriter } from "../io/stdout-sync.js";
import { jsonError } from "./json-error.js";

/**
 * Say the hard quit (module docstring); the caller exits with `EXIT.interrupted` (130).
 * @param reading whether the reading loop may have begun (before it, the run is left as it was).
 * @param json `--json`: the error object on stdout too, written synchronously (the process exits next).
 */
export function sayHardQuit(reading: boolean, json: boolean): void {
  const said = reading
    ? "stopped at once by a second Ctrl-C or SIGTERM: the verdicts stored so far are kept; what was in flight is not stored and the same command judges it again (it resumes the run)"
    : "stopped at once by a second Ctrl-C or SIGTERM before anything was read or judged: the run is left as it was";
  process.stderr.write(`ipi-judge: ${said}\n`);
  if (json) stdoutWriter()(`${JSON.stringify(jsonError(new Error(said), EXIT.interrupted))}\n`);
}
