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

/** The feedback message of a repeated key: names it, where, and both values. */
export function repeatedKeyMessage(r: RepeatedKey): string {
  return `${REPEATED_KEY_MESSAGE}"${r.key}"${r.path ? ` of ${r.path}` : ""} twice with different values (${r.first}, then ${r.second}); give each key once`;
}
