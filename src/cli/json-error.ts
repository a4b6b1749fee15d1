/**
 * The JSON a failed `--json` command prints on stdout (`./main.ts`; `label`'s second Ctrl-C too, `./hard-quit.ts`), so a
 * script reading stdout gets a reason, never an empty string.
 */
import { EXIT } from "../errors.js";

/**
 * The JSON a failed `--json` command prints on stdout: `{"error": {"exit_code", "kind", "message"}}`, kind `usage`
 * (exit 2: a bad option, config or run name), `interrupted` (exit 130: `label` stopped before it read any input),
 * `broken_judge` (exit 3: the judges asked for were stopped before storing a verdict, `./stopped-exit.ts`) or
 * `fatal` (exit 1); the message as on stderr, without the prefix.
 */
export function jsonError(e: unknown, code: number): { error: { exit_code: number; kind: "usage" | "fatal" | "interrupted" | "broken_judge"; message: string } } {
  const message = (e as Error)?.message ?? String(e);
  const kind = code === EXIT.usage ? "usage" : code === EXIT.interrupted ? "interrupted" : code === EXIT.brokenJudge ? "broken_judge" : "fatal";
  return { error: { exit_code: code, kind, message: message.replace(/^error: /, "") } };
}

