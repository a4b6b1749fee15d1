import { afterEach, describe, expect, it, vi } from "vitest";
import { failureText } from "../../src/ingest/errors.js";
import { decodeFailure, decodeUtf8Strict, ownValue, parseJson } from "../../src/ingest/text.js";
import { parseAgentDojoBytes } from "../../src/ingest/agentdojo.js";
import { parseChatLineBytes } from "../../src/ingest/chat-jsonl.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const validRun = Buffer.from(JSON.stringify({ messages: [{ role: "user", content: "hi" }] }));

describe("decoder failures are never misreported as invalid UTF-8", () => {
  it("a string-too-long failure on valid bytes is too_large; another failure is read_error", () => {
    const tooLong = Object.assign(new Error("Cannot create a string longer than 0x1fffffe8 characters"), { code: "ERR_STRING_TOO_LONG" });
    vi.spyOn(TextDecoder.prototype, "decode").mockImplementation(() => {
      throw tooLong;
    });
    const d = decodeUtf8Strict(validRun);
    expect(d).toMatchObject({ ok: false, kind: "too_large" });
    const r = parseAgentDojoBytes(validRun, { path: "/tmp/x.json", root: "/tmp" });
    expect(!r.ok && r.error.kind).toBe("too_large");
    expect(!r.ok && r.error.message).toContain("too long for one string");
    const c = parseChatLineBytes(validRun, { path: "/tmp/x.jsonl", line: 3, relPath: "x.jsonl" });
    expect(!c.ok && c.error).toMatchObject({ kind: "too_large", line: 3 });

    vi.spyOn(TextDecoder.prototype, "decode").mockImplementation(() => {
      throw new Error("out of memory");
    });
    const o = parseAgentDojoBytes(validRun, { path: "/tmp/x.json", root: "/tmp" });
    expect(!o.ok && o.error.kind).toBe("read_error");
    expect(!o.ok && o.error.message).toBe("/tmp/x.json: cannot decode the text: out of memory");
  });

  it("real invalid bytes are invalid_utf8 with the offset of the bad byte (never a made-up byte 0)", () => {
    const d = decodeUtf8Strict(Buffer.from([0x61, 0x0a, 0x62, 0xff]));
    expect(d).toEqual({ ok: false, kind: "invalid_utf8", offset: 3, line: 2, message: "invalid UTF-8 byte 0xff at byte 3 (line 2)" });
    if (d.ok) return;
    expect(decodeFailure(d, "/f.json")).toMatchObject({ kind: "invalid_utf8", line: 2 });
  });
});

describe("parseJson and failureText name only what happened", () => {
  it("stack exhaustion is 'nesting too deep'; other RangeErrors keep their own text", () => {
    expect(failureText(new RangeError("Maximum call stack size exceeded"))).toMatch(/^nested too deep to convert/);
    expect(failureText(new RangeError("Invalid string length"))).toMatch(/^too long to convert/);
    expect(failureText(new RangeError("something else"))).toBe("something else");
    const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    const p = parseJson(deep);
    if (!p.ok) expect(p.message).toMatch(/nesting too deep/);
    expect(parseJson('{"a":')).toMatchObject({ ok: false });
  });
});

describe("ownValue", () => {
  it("finds own keys only", () => {
    const t = { a: 1 };
    expect(ownValue(t, "a")).toBe(1);
    for (const k of ["constructor", "__proto__", "toString", "hasOwnProperty", "b", 7, null]) expect(ownValue(t, k)).toBeUndefined();
  });
});
