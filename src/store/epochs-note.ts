/**
 * Every figure command's note on a run whose Inspect samples ran several epochs (break51 finding 6): label's
 * `inspect_epochs` warning (`../ingest/inspect-epochs.ts`), kept in `summary.json`'s `ingest_warnings`, said again
 * by each reader of the run (beside `same_content`, `./removed-ids.ts`), since the rates' Wilson intervals treat the
 * epochs of one sample as independent runs wherever the figures are printed, not only in label's summary.
 */
import fs from "node:fs";
import path from "node:path";
import { noteRunLevel } from "./skipped-lines.js";

/** The ingest warning kind (`INSPECT_EPOCHS` of ../ingest/inspect-epochs.ts; the store does not import ingest). */
const KIND = "inspect_epochs";

/**
 * The note's text from a run's `summary.json` object, or undefined when it records no such warning.
 * @param runDir the run folder (named in the note); @param summary the parsed summary (any shape: checked here).
 */
export function epochsNoteText(runDir: string, summary: unknown): string | undefined {
  const ws = (summary as { ingest_warnings?: unknown } | null)?.ingest_warnings;
  if (!Array.isArray(ws)) return undefined;
  const msgs = ws.filter((w) => w && typeof w === "object" && w.kind === KIND && typeof w.message === "string").map((w) => w.message as string);
  return msgs.length ? `${path.resolve(runDir)}: ${KIND}: ${msgs.join("; ")}` : undefined;
}

/** Record the run's epochs note for this command (`noteRunLevel`: said once at exit, in `--json` warnings), or drop it. */
export function noteInspectEpochs(runDir: string): void {
  let summary: unknown = null;
  try {
    summary = JSON.parse(fs.readFileSync(path.join(runDir, "summary.json"), "utf8"));
  } catch {
    summary = null; // no summary (a run being labelled, an older layout): nothing to say
  }
  noteRunLevel(`${KIND}\u0000${path.resolve(runDir)}`, epochsNoteText(runDir, summary));
}
