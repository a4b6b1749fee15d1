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
    const got = jsonLines(["not json", "{", '  "a": 1,', one("b")].join("\n"));
    expect(got.map((l) => [l.line, l.error === undefined])).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
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

// Session 47 loose end: a pretty-printed record cut off before its close (a truncated file, or the rest lost before
// the next one-line record) was still one error per line.
describe("jsonLines: a record written over several lines that never closes", () => {
  const cutAt = (id: string, keep: number) => JSON.stringify(rec(id), null, 2).split("\n").slice(0, keep);

  it("at the end of the file is one entry naming its span, marked as cut off", () => {
    const cut = cutAt("b", 7);
    const got = jsonLines([one("a"), ...cut].join("\n"));
    expect(got).toHaveLength(2);
    expect(got[1]).toMatchObject({ line: 2, last: 8, span: true });
    expect(got[1].error).toBe(
      "lines 2-8 look like the start of one record written over several lines whose closing bracket never comes (7 lines; the file may be cut off, or the rest of the record was lost): the file looks pretty-printed, not one record per line (JSON Lines); it is not read: restore the whole record and write it on one line (e.g. jq -c .)",
    );
  });

  it("before a one-line record is one entry, and the record after it is read", () => {
    const cut = cutAt("b", 6);
    const got = jsonLines([one("a"), ...cut, one("c")].join("\r\n"));
    expect(got.map((l) => [l.line, l.error === undefined, "span" in l])).toEqual([
      [1, true, false],
      [2, false, true],
      [8, true, false],
    ]);
    expect(got[2]).toEqual({ line: 8, value: rec("c") });
  });

  it("a torn line before it stays its own error; the cut-off record after it is one entry", () => {
    const got = jsonLines(['{"id": "a", "mess', ...cutAt("b", 5)].join("\n"));
    expect(got.map((l) => [l.line, "span" in l])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(got[1]).toMatchObject({ last: 6 });
  });

  it("torn one-line records (not indented, no bracket alone) stay one error each", () => {
    const got = jsonLines(['{"id": "a", "mess', '{"id": "b", "mess', '{"id": "c", "mess'].join("\n"));
    expect(got.map((l) => [l.line, "span" in l])).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
  });

  it("a search settled by the byte limit is never called cut off", () => {
    const s = new PrettySpans<number>(20);
    const l = (n: number, text: string): SpanLine<number> => ({ line: n, text: () => text, parsed: false, record: false, item: n });
    expect(s.push(l(1, "{"))).toEqual([]);
    expect(s.push(l(2, '  "a": 1,'))).toEqual([]);
    const out = s.push(l(3, '  "b": "0123456789abcdef",'));
    expect(out.map((o) => o.kind)).toEqual(["line", "line", "line"]);
  });
});
