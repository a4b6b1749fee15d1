/**
 * The stored error kind of a verdict whose judge's last reply gave a JSON key twice with different values (an
 * ambiguous reply, `../judges/duplicate-keys.ts`), and how a record stored before the kind existed (kind
 * `unparseable` with that reply's message) is read: as that kind, so the slim records (`./records.ts`, which keep
 * no message) and judge health (`../verdict/repeated-key-health.ts`) count it under its own name.
 */

/** The error kind of a verdict whose judge's last reply gave a JSON key twice with different values. */
export const REPEATED_KEY = "repeated_key";
/** The start of the message of such a reply (`repeatedKeyMessage` of ../judges/duplicate-keys.ts). */
export const REPEATED_KEY_MESSAGE = "the reply's JSON gives the key ";
/**
 * A verdict's error kind with a repeated key named as such: {@link REPEATED_KEY} (or `retry_` before it) for one stored
 * before the kind existed (kind `unparseable` with the repeated-key message), else the stored `error.kind`.
 */
export function errorKindOf(error: { kind: string; message?: string } | undefined): string | undefined {
  if (!error) return undefined;
  if ((error.kind === "unparseable" || error.kind === "retry_unparseable") && typeof error.message === "string" && error.message.startsWith(REPEATED_KEY_MESSAGE))
    return error.kind === "unparseable" ? REPEATED_KEY : `retry_${REPEATED_KEY}`;
  return error.kind;
}
