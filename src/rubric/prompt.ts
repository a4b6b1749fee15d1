/**
 * The judge prompt: the versioned template files under `prompts/<RUBRIC_VERSION>/` (`system.md`, `user.md`).
 *
 * - The system message is `system.md` verbatim: the rubric, identical for every trajectory and placed first, so
 *   provider-side prompt caching applies. It holds no per-trajectory text (not even the nonce).
 * - The user message is `user.md` with `{{trajectory_block}}`, `{{injections_block}}` and `{{nonce}}` replaced
 *   in one pass (so placeholder-like text inside the trajectory is never substituted again).
 *
 * `promptSha256` identifies the prompt on every verdict (it is part of the resume key): the sha256 of the
 * UTF-8 bytes `"system.md\0" + system + "\0user.md\0" + user` (file names included so that moving text
 * from one file to the other changes the hash).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The rubric version: the folder name under `prompts/`. */
export const RUBRIC_VERSION = "rubric-v2";

/** Absolute path of the prompt folder (works from `src/rubric` and from `dist/rubric`). */
export const PROMPT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../prompts", RUBRIC_VERSION);

/** The raw template files. */
export const SYSTEM_TEMPLATE = readFileSync(path.join(PROMPT_DIR, "system.md"), "utf8");
export const USER_TEMPLATE = readFileSync(path.join(PROMPT_DIR, "user.md"), "utf8");

/** sha256 (hex) over the template files' contents (module docstring). */
export const promptSha256 = createHash("sha256")
  .update(`system.md\0${SYSTEM_TEMPLATE}\0user.md\0${USER_TEMPLATE}`, "utf8")
  .digest("hex");

/** The placeholders of `user.md`. */
export const PLACEHOLDERS = ["trajectory_block", "injections_block", "nonce"] as const;

/** What the user message embeds: the output of `renderForJudge` (only these fields are read). */
export interface RenderedForPrompt {
  trajectoryBlock: string;
  injectionsBlock: string;
  nonce: string;
}

export interface PromptMessage {
  role: "system" | "user";
  content: string;
}

/**
 * The two messages of a judge conversation for one rendered trajectory.
 * @param rendered `renderForJudge(t)` (trajectory block, injections block — `""` when none — and nonce).
 * @returns `[{role: "system", content: SYSTEM_TEMPLATE}, {role: "user", content: <user.md filled>}]`.
 */
export function buildMessages(rendered: RenderedForPrompt): [PromptMessage, PromptMessage] {
  let user = "";
  for (const p of USER_PIECES)
    user +=
      p === TRAJECTORY ? rendered.trajectoryBlock : p === INJECTIONS ? rendered.injectionsBlock : p === NONCE ? rendered.nonce : p.text;
  return [
    { role: "system", content: SYSTEM_TEMPLATE },
    { role: "user", content: user },
  ];
}

/** A placeholder of `user.md` in {@link USER_PIECES} (compared by identity), or a piece of its text. */
type UserPiece = { text: string };
const TRAJECTORY: UserPiece = { text: "" };
const INJECTIONS: UserPiece = { text: "" };
const NONCE: UserPiece = { text: "" };

/**
 * `user.md` split once at its placeholders, in order: the text between them and the placeholders themselves. Filling
 * them piece by piece is the one-pass replacement of the module docstring (a value is never scanned for
 * placeholders), without matching the template's text again for every trajectory (issue 26: per-item CPU).
 */
const USER_PIECES: readonly UserPiece[] = (() => {
  const out: UserPiece[] = [];
  const slot = { trajectory_block: TRAJECTORY, injections_block: INJECTIONS, nonce: NONCE };
  let at = 0;
  for (const m of USER_TEMPLATE.matchAll(/\{\{(trajectory_block|injections_block|nonce)\}\}/g)) {
    if (m.index > at) out.push({ text: USER_TEMPLATE.slice(at, m.index) });
    out.push(slot[m[1] as keyof typeof slot]);
    at = m.index + m[0].length;
  }
  if (at < USER_TEMPLATE.length) out.push({ text: USER_TEMPLATE.slice(at) });
  return out;
})();
