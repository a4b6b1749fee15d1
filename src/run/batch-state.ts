/**
 * A batch chunk's state lines as written (`./batch-chunk.ts` `StateLine`): without the conversation's system message
 * (the rubric, ~7.7 KB, the same text in every line: kept once per run in `system-<sha>.txt`, written and fsynced
 * before any line names it) and its first user message (~8 KB, rendered again from the trajectory when read, checked
 * by hash), each replaced by its SHA-256 (`sys`, `usr`). Issue 26: a million conversations' state lines were ~36 GB
 * with both messages, ~20 GB without them. Lines written whole (before 2026-12) are read as they are.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../io/write-atomic.js";
import type { ChatMessage } from "../providers/request-body.js";
import { renderAgain, type RenderedEvidence } from "../judges/conversation.js";
import type { StateLine } from "./batch-chunk.js";

/** System texts by SHA-256 known to be in `system-<sha>.txt` (written or read by this process), one per batch folder. */
export type SystemTexts = Map<string, string>;

function systemFile(dir: string, sha: string): string {
  return path.join(dir, `system-${sha}.txt`);
}

/**
 * The state line to write (module docstring): a conversation whose first messages are not a plain system + user pair
 * is kept whole. Writes `system-<sha>.txt` in `dir` (durably) the first time a system text is met.
 * @param dir the judge's batch folder; @param systems the texts already written or read there (updated).
 * @returns a new line (the argument is not changed).
 */
export function compactStateLine(line: StateLine, dir: string, systems: SystemTexts): StateLine {
  const m = line.conv.messages;
  if (m.length < 2 || !plainMessage(m[0], "system") || !plainMessage(m[1], "user")) return line;
  const sys = sha256(m[0].content);
  if (!systems.has(sys)) {
    const file = systemFile(dir, sys);
    if (!(fs.existsSync(file) && fs.readFileSync(file, "utf8") === m[0].content)) writeFileAtomic(file, m[0].content);
    systems.set(sys, m[0].content);
  }
  return { ...line, conv: { ...line.conv, messages: m.slice(2) }, sys, usr: sha256(m[1].content) };
}

/**
 * Put back what {@link compactStateLine} left out of a state line read from chunk `key` (in place); lines written
 * whole are left as they are.
 * @returns the trajectory's rendered parts and their elided ranges (the evidence context's), when the user message was rendered again.
 * @throws Error when the system text's file is missing or does not hash to `sys`, or the trajectory renders to a
 *   user message other than the one sent (a build that renders differently resumed the run): nothing is guessed;
 *   the message names the judge and chunk and says what to do.
 */
export function expandStateLine(line: StateLine, key: string, dir: string, systems: SystemTexts, judgeId: string): RenderedEvidence | undefined {
  if (line.sys === undefined || line.usr === undefined) return undefined;
  let system = systems.get(line.sys);
  if (system === undefined) {
    const file = systemFile(dir, line.sys);
    if (!fs.existsSync(file)) throw new Error(`judge "${judgeId}", batch chunk ${key}: ${file} is missing (the system prompt its state lines were sent with); restore it, or remove the run's batches folder and store.json's "batches" entries to send again`);
    system = fs.readFileSync(file, "utf8");
    if (sha256(system) !== line.sys) throw new Error(`judge "${judgeId}", batch chunk ${key}: ${file} does not hash to the SHA-256 its state lines name (${line.sys}): it was changed; restore it`);
    systems.set(line.sys, system);
  }
  const again = renderAgain(line.conv);
  if (sha256(again.messages[1].content) !== line.usr)
    throw new Error(
      `judge "${judgeId}", batch chunk ${key}, request ${line.custom_id}: the trajectory "${line.conv.trajectory.id}" renders to another user message than the one sent (SHA-256 ${line.usr}): this build renders trajectories differently from the one that wrote the chunk; finish the run with that build`,
    );
  line.conv.messages.unshift({ role: "system", content: system }, again.messages[1]);
  delete line.sys;
  delete line.usr;
  return { parts: again.parts, elided: again.elided };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** A message with exactly a role (the one given) and a text content: what may be left out. */
function plainMessage(m: ChatMessage | undefined, role: ChatMessage["role"]): m is ChatMessage {
  if (!m || m.role !== role || typeof m.content !== "string") return false;
  for (const k in m) if (k !== "role" && k !== "content") return false;
  return true;
}
