import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { designId, frameDigest, readSampleFrame } from "../../src/store/sample-frame.js";
import { readSampleWhere } from "../../src/store/sample-where.js";

describe("sample frame record (frames13)", () => {
  it("frameDigest: count and SHA-256 of the ids in code-unit order, each followed by a newline; order of input does not matter", () => {
    const d = frameDigest(["b", "a", "B"]);
    expect(d).toEqual({ N: 3, ids_sha256: createHash("sha256").update("B\na\nb\n").digest("hex") });
    expect(frameDigest(["B", "a", "b"], true)).toEqual(d);
    expect(frameDigest(["a", "b"]).ids_sha256).not.toBe(d.ids_sha256);
    expect(designId(d.ids_sha256, 1, { random: 2 })).toMatch(/^[0-9a-f]{16}$/);
    expect(designId(d.ids_sha256, 2, { random: 2 })).not.toBe(designId(d.ids_sha256, 1, { random: 2 }));
  });
  it("readSampleFrame / readSampleWhere name the field and what is wrong", () => {
    const ok = { design: "abc", N: 3, ids_sha256: "0".repeat(64) };
    expect(readSampleFrame(ok)).toEqual(ok);
    expect(readSampleFrame(JSON.stringify(ok))).toEqual(ok);
    expect(readSampleFrame("")).toBeUndefined();
    expect(readSampleFrame("{x")).toMatch(/^sample_frame is not JSON/);
    expect(readSampleFrame([1])).toBe("sample_frame must be an object {design, N, ids_sha256}, got an array");
    expect(readSampleFrame({ ...ok, N: 2.5 })).toBe("sample_frame.N must be a positive integer, got 2.5");
    expect(readSampleFrame({ ...ok, ids_sha256: "xyz" })).toBe('sample_frame.ids_sha256 must be 64 hex digits, got "xyz"');
    expect(readSampleFrame({ ...ok, design: 7 })).toBe("sample_frame.design must be a non-empty string, got 7");
    const sw = { filter: "model=a", clauses: { model: ["a"] }, N: 6 };
    expect(readSampleWhere({ ...sw, clauses: [["model", "a"]] })).toBe("sample_where.clauses must be an object {field: [values]}, got an array");
    expect(readSampleWhere({ ...sw, clauses: { model: "a" } })).toBe('sample_where.clauses.model must be a list of strings, got "a"');
    expect(readSampleWhere({ ...sw, filter: 3 })).toBe("sample_where.filter must be a string, got 3");
    expect(readSampleWhere("nope")).toBe('sample_where is not JSON: "nope"');
  });
});
