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

  it("reads any depth: a repeat under 3,000 nested objects or 100,000 nested arrays is found, never thrown (break44)", () => {
    // the tree reader used before threw RangeError at 3,000 objects and returned null at 10,000 arrays
    const objects = '{"x":'.repeat(3000) + '{"a": 1, "a": 2}' + "}".repeat(3000);
    expect(repeatedKey(objects)).toMatchObject({ key: "a", first: "1", second: "2" });
    expect(repeatedKey(objects)!.path).toBe(`${"x.".repeat(60)}...${".x".repeat(30)}`); // cut for the message
    const arrays = "[".repeat(100_000) + '{"a": 1, "a": 2}' + "]".repeat(100_000);
    expect(may(arrays)).toBe(true);
    expect(repeatedKey(arrays)).toMatchObject({ key: "a", first: "1", second: "2", path: `${"[0]".repeat(40)}...${"[0]".repeat(20)}` });
    expect(repeatedKey("[".repeat(100_000) + '{"a": 1, "a": 1}' + "]".repeat(100_000))).toBeNull();
  });

  it("compares values, not their spelling; deep values compared whole; paths name the object", () => {
    expect(repeatedKey('{"a": "\\u0061", "a": "a"}')).toBeNull();
    expect(repeatedKey('{"a": 1.0, "a": 1, "b": [1, {"c": null}], "b": [1,{"c":null}]}')).toBeNull();
    expect(repeatedKey('{"b": [1, {"c": null}], "b": [1, {"c": false}]}')).toMatchObject({ path: "", key: "b", first: '[1,{"c":null}]', second: '[1,{"c":false}]' });
    expect(repeatedKey('{"m": [0, {"k": "x", "k": "y"}]}')).toMatchObject({ path: "m[1]", key: "k", first: '"x"', second: '"y"' });
    expect(repeatedKey('{"a": 1, "a": 1, "a": 2}')).toMatchObject({ first: "1", second: "2" });
    expect(repeatedKey('{"a": "' + "z".repeat(100) + '", "a": 0}')!.first).toBe('"' + "z".repeat(59) + "...");
  });
});
