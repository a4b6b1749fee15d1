/**
 * The line rules every JSON Lines reader shares (src/io/line-ends.ts): LF ends a line and the CR of a CRLF is dropped;
 * a lone CR ends no line; a byte order mark is dropped on line 1 and is an error naming the line anywhere else. Checked
 * on the helper and on each reader: the journals' readJsonl, the small files' jsonLines, chat JSONL input (label).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lineBytes, lineText, midFileBom } from "../../src/io/line-ends.js";
import { jsonLines, readJsonl } from "../../src/io/jsonl.js";
import { readTrajectories } from "../../src/ingest/index.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "line-ends-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const BOM = "\ufeff";
const rec = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }] });
/** The four cases: a BOM before line 1, CRLF breaks, lone CR breaks, a BOM starting line 2 (two files joined). */
const CASES = {
  bom: `${BOM}${rec("a")}\n${rec("b")}\n`,
  crlf: `${rec("a")}\r\n${rec("b")}\r\n`,
  loneCr: `${rec("a")}\r${rec("b")}\r`,
  midBom: `${rec("a")}\n${BOM}${rec("b")}\n`,
};

describe("line rules (src/io/line-ends.ts)", () => {
  it("lineText / lineBytes: CRLF's CR dropped, line 1's mark dropped, a later line's mark an error naming it", () => {
    expect(lineText(`${BOM}{}\r`, 1)).toEqual({ text: "{}" });
    expect(lineText(`${BOM}{}`, 2)).toEqual({ error: midFileBom(2) });
    expect(lineText("{}\r\r", 3)).toEqual({ text: "{}\r" });
    expect(Buffer.from((lineBytes(Buffer.from(`${BOM}{}\r`), 1) as { bytes: Uint8Array }).bytes).toString()).toBe("{}");
    expect(lineBytes(Buffer.from(`${BOM}{}`), 5)).toEqual({ error: midFileBom(5) });
    expect(midFileBom(5)).toMatch(/starts line 5, not the file: files joined end to end/);
  });

  it("jsonLines and readJsonl read each case the same way", async () => {
    const want = {
      bom: { values: ["a", "b"], bad: [] as number[] },
      crlf: { values: ["a", "b"], bad: [] },
      loneCr: { values: [], bad: [1] }, // one line: a lone CR ends none
      midBom: { values: ["a"], bad: [2] },
    };
    for (const [name, text] of Object.entries(CASES) as [keyof typeof CASES, string][]) {
      const mem = jsonLines(text);
      expect({ name, values: mem.filter((l) => l.error === undefined).map((l) => (l.value as { id: string }).id), bad: mem.filter((l) => l.error !== undefined).map((l) => l.line) }).toEqual({ name, ...want[name] });
      const file = path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(file, text);
      const bad: number[] = [];
      const values: string[] = [];
      for await (const r of readJsonl<{ id: string }>(file, (n) => bad.push(n))) values.push(r.id);
      expect({ name, values, bad }).toEqual({ name, ...want[name] });
    }
    expect(jsonLines(CASES.midBom)[1]).toEqual({ line: 2, error: midFileBom(2) });
  });

  it("chat JSONL input reads each case the same way: the mid-file mark is an input error naming the line; lone CR, one line with the hint", async () => {
    const out: Record<string, { ids: string[]; errors: string[] }> = {};
    for (const [name, text] of Object.entries(CASES)) {
      const file = path.join(dir, `in-${name}.jsonl`);
      fs.writeFileSync(file, text);
      const ids: string[] = [];
      const errors: string[] = [];
      for await (const item of readTrajectories([file], { format: "chat-jsonl" })) {
        if (item.kind === "trajectory") ids.push(item.trajectory.id.split(":").pop()!);
        else errors.push(`${item.error.line}: ${item.error.message}`);
      }
      out[name] = { ids, errors };
    }
    expect(out.bom).toEqual({ ids: ["a", "b"], errors: [] });
    expect(out.crlf).toEqual({ ids: ["a", "b"], errors: [] });
    expect(out.loneCr.ids).toEqual([]);
    expect(out.loneCr.errors).toHaveLength(1);
    expect(out.loneCr.errors[0]).toMatch(/^1: .*its lines end in CR alone/);
    expect(out.midBom).toEqual({ ids: ["a"], errors: [`2: ${path.join(dir, "in-midBom.jsonl")}:2: ${midFileBom(2)}`] });
  });
});
