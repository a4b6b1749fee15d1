/**
 * A key written twice with different values in one JSON object of a judge's reply (red team 35a F6:
 * `{"label":"unaffected", ..., "label":"full_compliance"}` was read by `JSON.parse` as its last value, silently). Such a
 * reply says two things, like two different verdict objects do, so the parser refuses it as `ambiguous` (`./parse.ts`).
 * The same key twice with the same value is no ambiguity. Read with jsonc-parser's syntax tree (the keys as written),
 * not a regex. The scan and the tree reader are `../io/repeated-keys.ts` (input files use them too).
 */
import { REPEATED_KEY_MESSAGE } from "../store/repeated-key-kind.js";
import type { RepeatedKey } from "../io/repeated-keys.js";

export { mayRepeatKey, repeatedKey, type RepeatedKey } from "../io/repeated-keys.js";

/**
 * The feedback message of a read key given beside a spelling of it that differs only by case, with another value
 * (`"label"` and `"Label"`; `./extra-keys.ts` `caseOf`): ambiguous as a key given twice is, and stored and counted the same
 * (error kind `repeated_key`: the message starts as {@link repeatedKeyMessage}'s).
 * @param e the key not read (`key`, `value`) and the read key (`caseOf`, `readValue`).
 */
export function caseKeyMessage(e: { path: string; key: string; value: string; caseOf: string; readValue: string }): string {
  return (
    `${REPEATED_KEY_MESSAGE}"${e.caseOf}"${e.path ? ` of ${e.path}` : ""} twice, also spelled "${e.key}" (keys that differ only by case), ` +
    `with different values (${e.readValue}, then ${e.value}); give each key once, spelled as asked (keys are case-sensitive)`
  );
}

/** The feedback message of a repeated key: names it, where, and both values. */
export function repeatedKeyMessage(r: RepeatedKey): string {
  return `${REPEATED_KEY_MESSAGE}"${r.key}"${r.path ? ` of ${r.path}` : ""} twice with different values (${r.first}, then ${r.second}); give each key once`;
}
