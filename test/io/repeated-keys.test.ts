/**
 * The repeated-key scan (src/io/repeated-keys.ts) that judge replies and input items share: it counts keys by hopping
 * from quote to quote, so escaped quotes and white space before the colon are handled, and a string of millions of
 * characters (a tool result in an input file) does not overflow the stack as the earlier regex did (break43).
 */
import { describe, expect, it } from "vitest";
import { mayRepeatKey, repeatedKey, repeatedKeys } from "../../src/io/repeated-keys.js";

const may = (s: string) => mayRepeatKey(s, JSON.parse(s));

describe("mayRepeatKey", () => {
  it("counts keys, not strings: escaped quotes, colons inside strings, white space before the colon", () => {
    expect(may('{"a": "x\\": y", "b" \n : ["\\\\", "c:"]}')).toBe(false);
    expect(may('{"a": "x\\"", "a" : 1}')).toBe(true);
    expect(may('[{"k": 1}, {"k": 2}]')).toBe(false);
    expect(may('{"k": {"k": {"k": 0}}}')).toBe(false);
    expect(may('{"k": {"j": 1, "j": 1}}')).toBe(true);
    expect(may('"just a string: with a colon"')).toBe(false);
  });

  it("a 10-million-character string value does not overflow the stack", () => {
    const s = `{"messages": [{"role": "tool", "content": "${"a".repeat(10_000_000)}"}], "security": true}`;
    expect(() => may(s)).not.toThrow();
    expect(may(s)).toBe(false);
    const twice = s.slice(0, -1) + ', "security": false}';
    expect(may(twice)).toBe(true);
    expect(repeatedKey(twice)).toMatchObject({ path: "", key: "security", first: "true", second: "false" });
  });
});

describe("repeatedKeys", () => {
  it("gives the first repeat of each object, up to max; the same value twice is none", () => {
    const s = '{"samples": [{"id": 1, "s": {"v": "C", "v": "I"}}, {"id": 2}, {"id": 3, "id": 4}], "x": 1, "x": 1}';
    expect(repeatedKeys(s).map((r) => `${r.path}|${r.key}`).sort()).toEqual(["samples[0].s|v", "samples[2]|id"]);
    expect(repeatedKeys(s, 1)).toHaveLength(1);
    expect(repeatedKeys('{"a": 1, "a": 1}')).toEqual([]);
  });
});
