/**
 * Format detection: how one input file will be read (`agentdojo`, `chat-jsonl`, `inspect`, `shell`), from the
 * `--format` option, the file's extension and, for JSONL, its first lines.
 */
import { oneDocumentError } from "./one-document.js";
import { encodingHint } from "./encoding-hint.js";
import type { IngestError } from "../types.js";
import { ingestError } from "./errors.js";
import { isBlank, rawLines } from "./lines.js";
import { decodeUtf8Strict, parseJson } from "./text.js";
import { errText, EVAL_EXT, JSON_EXT, JSONL_EXT, TRAJ_EXT } from "./walk.js";

/** The input formats (`--format`). */
export type InputFormat = "agentdojo" | "chat-jsonl" | "inspect" | "shell";
export const INPUT_FORMATS: readonly InputFormat[] = ["agentdojo", "chat-jsonl", "inspect", "shell"];

/** What a file will be read as. `unknown` carries the reason. */
export type Plan = { as: InputFormat } | { as: "unknown"; why: string } | { as: "error"; error: IngestError };

/** How many non-blank lines of a `.jsonl` file {@link plan} looks at to tell whether it holds trajectories. */
export const DETECT_SAMPLE_LINES = 20;

/**
 * True when one line (its bytes; `partial` when only the first bytes of a line over the size limit) looks like a
 * chat-jsonl trajectory: a JSON object with an own `messages` key or, when the line is not valid JSON (truncated,
 * bad UTF-8, partial), when its text mentions `"messages"`.
 */
function hasMessages(bytes: Buffer, partial: boolean): boolean {
  const d = decodeUtf8Strict(bytes);
  const text = d.ok ? d.text : bytes.toString("latin1");
  if (d.ok && !partial) {
    const parsed = parseJson(text);
    if (parsed.ok) {
      const v = parsed.value;
      return typeof v === "object" && v !== null && !Array.isArray(v) && Object.hasOwn(v, "messages");
    }
  }
  return text.includes('"messages"');
}

/**
 * Decide how to read one file: `opts.format` when given; else `*.json` -> agentdojo; `*.jsonl`/`*.ndjson` ->
 * chat-jsonl when ANY of its first {@link DETECT_SAMPLE_LINES} non-blank lines has `messages` (see
 * {@link hasMessages}), so that a bad first line is one error of its own and the good lines are still read;
 * otherwise `unknown` (e.g. a `manifest.jsonl`: objects without `messages` on every line), one error for the whole
 * file; any other extension -> `unknown`. The reasons name the CLI option `--format` that overrides detection.
 */
export async function plan(file: string, format: InputFormat | undefined, max: number): Promise<Plan> {
  if (format) return { as: format };
  if (JSON_EXT.test(file)) return { as: "agentdojo" };
  if (EVAL_EXT.test(file)) return { as: "inspect" };
  if (TRAJ_EXT.test(file)) return { as: "shell" };
  if (!JSONL_EXT.test(file)) {
    return {
      as: "unknown",
      why: `not a .json, .jsonl, .ndjson, .eval or .traj file: cannot tell the format (pass \`--format ${INPUT_FORMATS.join("|")}\` to read it)`,
    };
  }
  let sampled = 0;
  let first: Buffer | undefined;
  let firstParses = true;
  let lineNo = 0;
  // the sampled lines that are not JSON (the first one's line and parser message): a file none of whose lines is
  // JSON is said to be that, not "has no `messages`" (new user 45)
  let notJson = 0;
  let firstBad: { line: number; why: string } | undefined;
  try {
    for await (const { bytes, tooLong } of rawLines(file, { maxLineBytes: max })) {
      lineNo++;
      if (tooLong === undefined && isBlank(bytes)) continue;
      sampled++;
      if (hasMessages(bytes, tooLong !== undefined)) return { as: "chat-jsonl" };
      const parsed = tooLong === undefined ? parseJson(Buffer.from(bytes).toString("utf8")) : undefined;
      if (parsed !== undefined && !parsed.ok) {
        notJson++;
        firstBad ??= { line: lineNo, why: parsed.message };
      }
      if (first === undefined) {
        first = Buffer.from(bytes.subarray(0, 512));
        firstParses = parsed?.ok === true;
      }
      if (sampled >= DETECT_SAMPLE_LINES) break;
    }
  } catch (e) {
    return { as: "error", error: ingestError("read_error", file, `cannot read file: ${errText(e)}`) };
  }
  if (sampled === 0) return { as: "error", error: ingestError("invalid_json", file, "empty file: no JSON lines") };
  // a first line that is not JSON may be one pretty-printed document, or several one after another: said so, not
  // "pass --format chat-jsonl", which then gave an error per line (verifier 35 L5)
  if (first !== undefined && !firstParses) {
    const whole = oneDocumentError(file, max);
    if (whole) return { as: "error", error: whole };
  }
  if (firstBad !== undefined && notJson === sampled) {
    // the hint of another encoding says why; the parser's message would echo the undecoded bytes (NULs, U+FFFD)
    const hint = first === undefined ? "" : encodingHint(first);
    const why = hint ? "" : sampled === 1 ? ` (${firstBad.why})` : ` (line ${firstBad.line}: ${firstBad.why})`;
    const which = sampled === 1 ? "its only non-blank line is not JSON" : `none of its ${sampled < DETECT_SAMPLE_LINES ? "" : "first "}${sampled} non-blank lines is JSON`;
    return {
      as: "error",
      error: ingestError("invalid_json", file, `${which}${why}: not a JSON Lines trajectory file${hint}`, { line: firstBad.line }),
    };
  }
  const which =
    sampled === 1
      ? "its only non-blank line has no `messages`"
      : `none of its ${sampled < DETECT_SAMPLE_LINES ? "" : "first "}${sampled} non-blank lines has \`messages\``;
  return {
    as: "unknown",
    why: `${which}: not a chat-jsonl trajectory file (e.g. a manifest); pass \`--format chat-jsonl\` to force it${first === undefined ? "" : encodingHint(first)}`,
  };
}
