import { describe, expect, it } from "vitest";
import { invalidJsonLineText } from "../../src/sample/torn-line.js";

describe("import-annotations: a torn last JSONL line is said so (break55 #5)", () => {
  const good = '{"item_id":"a","annotator":"d","label":"unaffected"}\n';
  it("the last line without a final newline: a killed writer may have cut it, and how to recover", () => {
    const t = invalidJsonLineText("dana.jsonl line 2", "Unterminated string", 2, good + '{"item_id":"x-0');
    expect(t).toMatch(/^dana\.jsonl line 2: not valid JSON \(Unterminated string\): the file's last line, with no final newline: a writer killed mid-line may have cut it/);
    expect(t).toContain("delete that line (its item then needs labelling again)");
  });
  it("any other line, or a last line that ends in a newline: the bare parse error", () => {
    expect(invalidJsonLineText("f line 1", "e", 1, "{x\n" + good)).toBe("f line 1: not valid JSON (e)");
    expect(invalidJsonLineText("f line 2", "e", 2, good + "{x\n")).toBe("f line 2: not valid JSON (e)");
  });
});
