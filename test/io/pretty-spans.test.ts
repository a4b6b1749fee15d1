// Session 46 loose end: a pretty-printed record inside a JSON Lines file was one error per line (59 for one record).
// The framing now finds such a record and reports it once, by its line span; the lines around it are read.
import { describe, expect, it } from "vitest";
import { jsonLines } from "../../src/io/jsonl.js";
import { PrettySpans, type SpanLine } from "../../src/io/pretty-spans.js";

const rec = (id: string) => ({ id, messages: [{ role: "user", content: "a { brace and a \" quote }" }, { role: "assistant", content: "ok" }] });
const one = (id: string) => JSON.stringify(rec(id));

describe("jsonLines: a record written over several lines", () => {
  it("is one entry naming its span; the records before and after are read", () => {
    const pretty = JSON.stringify(rec("b"), null, 2);
    const n = pretty.split("\n").length;
    const text = [one("a"), pretty, one("c")].join("\n") + "\n";
    const got = jsonLines(text);
    expect(got).toHaveLength(3);
    expect(got[0]).toEqual({ line: 1, value: rec("a") });
    expect(got[1]).toMatchObject({ line: 2, last: 1 + n, span: true });
    expect(got[1].error).toBe(
      `lines 2-${1 + n} hold one JSON object written over ${n} lines: the file looks pretty-printed, not one record per line (JSON Lines); it is not read: write it on one line (e.g. jq -c .)`,
    );
    expect(got[2]).toEqual({ line: 2 + n, value: rec("c") });
  });

  it("an opening line up to its matching close that is not valid JSON joined is still one entry", () => {
    const text = [one("a"), "{", '  "id": "b",', '  "label": oops', "}", one("c")].join("\n");
    const got = jsonLines(text);
    expect(got.map((l) => l.line)).toEqual([1, 2, 6]);
    expect(got[1]).toMatchObject({ span: true, last: 5 });
    expect(got[1].error).toMatch(/^lines 2-5 look like one record written over 4 lines \(an opening bracket and its matching close\) but are not valid JSON joined \(/);
  });

  it("a torn line before good records does not swallow them; a lone brace stays one line's error", () => {
    const got = jsonLines(['{"id": "a", "mess', one("b"), "{", one("c"), "}"].join("\n"));
    expect(got.map((l) => [l.line, l.error === undefined, "span" in l])).toEqual([
      [1, false, false],
      [2, true, false],
      [3, false, false],
      [4, true, false],
      [5, false, false],
    ]);
  });

  it("a record after a torn line and before the end is still found; CRLF and a trailing comma are allowed", () => {
    const pretty = JSON.stringify(rec("b"), null, 2).split("\n");
    pretty[pretty.length - 1] += ",";
    const got = jsonLines(['{"torn": [1,', ...pretty].join("\r\n"));
    expect(got.map((l) => l.line)).toEqual([1, 2]);
    expect(got[1]).toMatchObject({ span: true, last: 1 + pretty.length });
  });

  it("a pretty-printed array of scalars (a line of it parses alone) is one span when it parses joined", () => {
    const got = jsonLines([one("a"), "[", '  "x",', '  "y"', "]"].join("\n"));
    expect(got).toHaveLength(2);
    expect(got[1].error).toMatch(/^lines 2-5 hold a JSON array of 2 item\(s\) written over 4 lines/);
  });

  it("lines that do not match up are reported one by one, as before", () => {
    const got = jsonLines(["not json", '{"a": 1,', '  "b": 2,', one("b"), "]", "}"].join("\n"));
    expect(got.map((l) => [l.line, l.error === undefined])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
      [5, false],
      [6, false],
    ]);
  });

  it("a pretty-printed record cut short is one entry: at the end of the file, or before the next record (break48: one error per line)", () => {
    const pretty = JSON.stringify(rec("b"), null, 2).split("\n");
    const cut = pretty.slice(0, 5); // `{`, `  "id": "b",`, `  "messages": [`, `    {`, `      "role": "user",`
    const end = jsonLines([one("a"), ...cut].join("\n") + "\n");
    expect(end).toHaveLength(2);
    expect(end[1]).toMatchObject({ line: 2, last: 6, span: true });
    expect(end[1].error).toBe(
      "lines 2-6 begin one record written over several lines whose opening bracket is never closed before the end of the file (cut short?): the file looks pretty-printed, not one record per line (JSON Lines); it is not read: write it on one line (e.g. jq -c .)",
    );
    const before = jsonLines([one("a"), ...cut, one("c")].join("\n"));
    expect(before.map((l) => [l.line, l.error === undefined])).toEqual([
      [1, true],
      [2, false],
      [7, true],
    ]);
    expect(before[1].error).toMatch(/^lines 2-6 begin one record written over several lines whose opening bracket is never closed before the record on line 7 \(cut short\?\)/);
    // a torn one-line record (its first line more than the bracket) and two torn lines stay one error a line
    expect(jsonLines([one("a"), '{"id": "b", "mess', '{"id": "c"'].join("\n")).map((l) => l.line)).toEqual([1, 2, 3]);
    expect(jsonLines([one("a"), "{"].join("\n")).map((l) => [l.line, "span" in l])).toEqual([[1, false], [2, false]]);
  });
});

describe("PrettySpans", () => {
  const line = (n: number, text: string): SpanLine<number> => {
    let parsed = true;
    let record = false;
    try {
      const v = JSON.parse(text) as unknown;
      record = typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length > 0;
    } catch {
      parsed = false;
    }
    return { line: n, text: () => text, parsed, record, item: n };
  };

  it("holds at most maxBytes of an open search, then settles it line by line", () => {
    const s = new PrettySpans<number>(10);
    expect(s.push(line(1, "{"))).toEqual([]);
    expect(s.push(line(2, '  "a": "0123456789",'))).toHaveLength(2);
    expect(s.push(line(3, "}")).map((o) => o.kind)).toEqual(["line"]);
  });

  it("settles nothing held at the end of good lines, and hands good lines straight back", () => {
    const s = new PrettySpans<number>();
    expect(s.push(line(1, one("a")))).toEqual([{ kind: "line", at: expect.objectContaining({ line: 1 }) }]);
    expect(s.end()).toEqual([]);
  });
});
