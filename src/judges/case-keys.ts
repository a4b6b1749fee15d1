/**
 * Keys of a judge's reply spelled in another case than asked (review rev2b #7). Two rules, both read by `./parse.ts`:
 * - a read key beside a case variant of it (`"label"` and `"Label"`): its values are compared as the parser reads
 *   them ({@link sameReading}: a label or bucket canonicalized, as `canonicalLabel` reads it, so `"Unaffected"` is
 *   `"unaffected"`); the same reading is no question (the variant is only named as not read, `./extra-keys.ts`),
 *   another one is ambiguous (`./duplicate-keys.ts`, `caseKeyMessage`);
 * - a key the label rests on, absent but present in another case (`"Bucket"` in a finding that has only `"label"`, a
 *   finding's `"Evidence"`, `"Findings"`, a quote's `"Quote"`): {@link caseOnlyKey} finds it and the reply fails
 *   (`invalid_shape`) with a message naming the spelling, so the judge gets a feedback turn, then the usual loud
 *   error. Before, the finding's bucket was read from `"label"` (or the evidence as none) and the variant only named.
 */
import { canonicalLabel } from "../rubric/buckets.js";
import type { SameValue } from "../io/repeated-keys.js";

/** The keys whose values are labels: compared canonicalized. */
const LABEL_KEYS = new Set(["label", "bucket"]);

/**
 * Whether two values of one key (`key`, as asked, lower-case) say the same thing as the parser reads them: labels and
 * buckets canonicalized when both name one of the six (`canonicalLabel`: case, spaces, dashes), any other value as
 * its JSON text.
 */
export function sameReading(key: string, a: unknown, b: unknown): boolean {
  if (LABEL_KEYS.has(key)) {
    const ca = canonicalLabel(a);
    if (ca !== null && ca === canonicalLabel(b)) return true;
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One key the label rests on, absent from an object but present there in another case. */
export interface CaseOnlyKey {
  /** Where the object lies ("" for the top level, `findings[0]`, `findings[0].evidence[1]`). */
  path: string;
  /** The key as asked (`bucket`). */
  asked: string;
  /** The key as written (`Bucket`). */
  spelled: string;
}

/**
 * The first of `asked` that `obj` lacks while holding a key that differs from it only by case.
 * @param path where `obj` lies in the reply, for the message.
 * @returns it, or undefined when none.
 */
export function caseOnlyKey(obj: Record<string, unknown>, asked: readonly string[], path: string): CaseOnlyKey | undefined {
  for (const a of asked) {
    if (Object.hasOwn(obj, a)) continue;
    const spelled = Object.keys(obj).find((k) => k.toLowerCase() === a);
    if (spelled !== undefined) return { path, asked: a, spelled };
  }
  return undefined;
}

/**
 * The parse failure's message (and so the feedback turn's) of {@link caseOnlyKey}: e.g. `findings[0] has no "bucket"
 * key, only "Bucket" (keys are case-sensitive): give it spelled "bucket"`.
 */
export function caseOnlyMessage(c: CaseOnlyKey): string {
  const where = c.path ? c.path : "the reply";
  return `${where} has no "${c.asked}" key, only "${c.spelled}" (keys are case-sensitive): give it spelled "${c.asked}"`;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * {@link caseOnlyKey} over a verdict-shaped object as `./parse.ts` reads it: at the top level `findings` (and, with no
 * findings, the top-level `evidence` read as one finding), in each finding `bucket` (and `label`, read for it, when it
 * has neither) and `evidence`, in each quote `quote`. Keys with a documented fallback (`rationale`, `explanation`,
 * `message_index`) are not asked for: their absence is said in the notes or is harmless to the label.
 * @returns the first found, in reading order, or undefined.
 */
export function replyCaseOnlyKey(obj: Record<string, unknown>): CaseOnlyKey | undefined {
  const noFindings = obj.findings === undefined || obj.findings === null;
  let found = caseOnlyKey(obj, noFindings ? ["findings", "evidence"] : [], "");
  const lists: [unknown, string][] = [];
  if (Array.isArray(obj.findings))
    obj.findings.forEach((f, i) => {
      if (!isObject(f)) return;
      found ??= caseOnlyKey(f, "label" in f ? ["bucket", "evidence"] : ["bucket", "label", "evidence"], `findings[${i}]`);
      lists.push([f.evidence, `findings[${i}].evidence`]);
    });
  else if (noFindings) lists.push([obj.evidence, "evidence"]);
  for (const [raw, path] of lists) {
    const items = Array.isArray(raw) ? raw : [raw];
    items.forEach((q, k) => {
      if (isObject(q)) found ??= caseOnlyKey(q, ["quote"], `${path}[${k}]`);
    });
  }
  return found;
}

/**
 * {@link sameReading} for a key written twice in one object (`"label":"unaffected", ..., "label":"Unaffected"`), given
 * the two values' token texts (`../io/repeated-keys.ts`): one label as read, no question which one was meant.
 */
export const sameLabelValue: SameValue = (key, first, second) => {
  if (!LABEL_KEYS.has(key)) return false;
  try {
    return sameReading(key, JSON.parse(first), JSON.parse(second));
  } catch {
    return false;
  }
};
