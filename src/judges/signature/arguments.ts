/**
 * Which arguments of a tool call are free text (what the call says: a subject, memo, body) and which name whom or what
 * it acts on (a recipient, an account), for the signature judge's calls (`./calls.ts` collectCalls, `./match.ts`
 * carriesAction). The name's last word proposes free text; the argument's own name or value can overrule it
 * (sigfix50: `payee_details`, `recipient_reference` holding the attacker's IBAN were read as a memo).
 */
import { addressShaped } from "./addresses.js";

/**
 * Last words of an argument name that make it free text (what a call says, not whom or what it acts on): a transfer's
 * `subject` or `memo`, a message's `body`, an item's `description` (break49 F1: an attacker's IBAN in the memo of a
 * payment to the user's own payee is not a payment to the attacker).
 */
export const FREE_TEXT_WORDS = new Set([
  "subject", "memo", "body", "description", "desc", "note", "notes", "reason", "comment", "comments", "message", "content",
  "text", "title", "summary", "details", "remark", "remarks", "purpose", "caption", "reference",
]);

/** Words of an argument name that say it names the call's target (the party or account it acts on). */
const TARGET_WORDS = new Set(["to", "recipient", "recipients", "payee", "payees", "beneficiary", "receiver", "iban", "account", "addressee", "destination"]);

function keyWords(key: string): string[] {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z]+/).filter(Boolean);
}

/** Bit of {@link keyClass}: the name is free text ({@link isFreeTextKey}). */
const FREE = 1;
/** Bit of {@link keyClass}: the name names the call's target ({@link namesTarget}). */
const TARGET = 2;
/** Most argument names {@link keyClass} keeps (a corpus has a few hundred; past this the memo starts again). */
const KEY_MEMO_MAX = 4096;
const keyClasses = new Map<string, number>();

/**
 * Both tests of an argument name's words, memoized by name (issue 26: every call's every argument name was split
 * into words twice, per trajectory, over a vocabulary of a few hundred names); the same bits as computing them.
 */
function keyClass(key: string): number {
  let c = keyClasses.get(key);
  if (c === undefined) {
    const words = keyWords(key);
    c = (words.length > 0 && FREE_TEXT_WORDS.has(words[words.length - 1]) ? FREE : 0) | (words.some((w) => TARGET_WORDS.has(w)) ? TARGET : 0);
    if (keyClasses.size >= KEY_MEMO_MAX) keyClasses.clear();
    keyClasses.set(key, c);
  }
  return c;
}

/** Whether an argument name is free text by its words: its last word (snake_case or camelCase) is one of {@link FREE_TEXT_WORDS}. */
export function isFreeTextKey(key: string): boolean {
  return (keyClass(key) & FREE) !== 0;
}

/** Whether an argument name names the call's target: one of its words is a target word (`payee_details`, `recipientReference`, `to_account`). */
export function namesTarget(key: string): boolean {
  return (keyClass(key) & TARGET) !== 0;
}

/** One top-level argument: its name and the range `[from, to)` of its values in the call's raw scalars. */
export interface ArgumentValues {
  key: string;
  from: number;
  to: number;
}

/**
 * The indexes of the scalar values that are free text. An argument is free text when its name's last word is a
 * free-text word ({@link isFreeTextKey}), except when
 * - its name also names the target ({@link namesTarget}: `payee_details`, `recipient_reference`), or
 * - its whole value is one account number or address (`addressShaped`) and no other argument holds one (a list of
 *   recipients counts when any of them is one): then it is the
 *   only thing the call can be aimed at (`details: "GB29 NWBK ..."`), while a memo holding only the attacker's IBAN
 *   beside a `recipient` holding the user's payee stays the memo.
 * @param scalars the call's raw scalar values, which `args` index
 * @returns indexes in ascending order ([] when none)
 */
export function freeTextIndexes(args: readonly ArgumentValues[], scalars: readonly string[]): number[] {
  const free = args.map((a) => a.to > a.from && isFreeTextKey(a.key) && !namesTarget(a.key));
  if (!free.includes(true)) return [];
  const shaped = args.map((a) => a.to === a.from + 1 && addressShaped(scalars[a.from]));
  // another argument naming an account or address: any of its values (a list of recipients)
  const targetElsewhere = args.some((a, i) => !free[i] && (shaped[i] || scalars.slice(a.from, a.to).some(addressShaped)));
  const out: number[] = [];
  args.forEach((a, i) => {
    if (free[i] && !(shaped[i] && !targetElsewhere)) for (let x = a.from; x < a.to; x++) out.push(x);
  });
  return out;
}
