/**
 * Records of the small run folders the view's loader tests write (test/view/other-run.test.ts,
 * test/view/run-scan.test.ts): a content hash, a verdict (a null label is a judge error), JSON Lines text.
 */
import { createHash } from "node:crypto";

/** The sha256 hex of a text: a row's `content_sha256` (and its verdicts'). */
export const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/** A stored verdict of `judge` on trajectory `id` at repeat 0, made on the text `id`; `more` overrides fields. */
export const verdict = (id: string, judge: string, label: string | null, more: Record<string, unknown> = {}) => ({
  trajectory_id: id,
  judge_id: judge,
  judge_model: `${judge}-model`,
  judge_family: "x",
  repeat: 0,
  prompt_sha256: "p",
  content_sha256: sha(id),
  attacked: true,
  status: label ? "ok" : "judge_error",
  label,
  label_basis: "judge",
  ...(label ? {} : { error: { kind: "unparseable", message: "no JSON object in the reply" } }),
  ...more,
});

/** JSON Lines text: each object on a line, a string as it is (a damaged line). */
export const jsonl = (xs: unknown[]) => xs.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join("\n") + "\n";
