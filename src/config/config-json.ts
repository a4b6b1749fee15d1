/**
 * The JSON of a judges configuration file, read strictly: a leading byte order mark is dropped (Windows editors write
 * one; `JSON.parse` would show it as a bad token), and a key written twice in one object with different values is
 * refused, as in input files (break43): `JSON.parse` keeps the last silently, so `{"model": "gpt-4o", ...,
 * "model": "gpt-4o-mini"}` would judge with a model the file also says it is not.
 */
import { mayRepeatKey, repeatedKey } from "../io/repeated-keys.js";

/**
 * Parse `text` (a whole file). @returns `{value}`, or `{problem}`: what is wrong, to follow the file's name.
 * @throws never.
 */
export function configJson(text: string): { value: unknown } | { problem: string } {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    return { problem: `not valid JSON: ${(e as Error).message}` };
  }
  const r = mayRepeatKey(json, value) ? repeatedKey(json) : null;
  if (r)
    return {
      problem: `${r.path === "" ? "(root)" : r.path}: key "${r.key}" given twice with different values (${r.first}, then ${r.second}); JSON keeps one of them silently, so the configuration says two things: give each key once`,
    };
  return { value };
}
