/**
 * A name from the run files or the command line (judge id, agent model, condition, file or folder) written in a
 * warning so that where it starts and ends is plain: in double quotes, with a quote or backslash inside escaped as
 * JSON writes them (`judge "gpt 4o: strict"`), the way `estimate`, `compare` and the provider errors name a judge.
 * Controls are left to `./shown.ts`, which text output applies to every string it prints.
 */

/** `name` in double quotes, JSON-escaped (`"a \"b\""`). */
export function quoted(name: string): string {
  return JSON.stringify(name);
}
