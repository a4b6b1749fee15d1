import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodingHint } from "../../src/ingest/encoding-hint.js";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";

const line = (i: number) => JSON.stringify({ id: `a${i}`, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }] });
const text = [0, 1, 2].map(line).join("\n") + "\n";
const utf16le = (s: string) => Buffer.from(s, "utf16le");
const utf16be = (s: string) => utf16le(s).swap16();

describe("encodingHint (red team 30, L2)", () => {
  it("names UTF-16 by its byte-order mark, either endianness", () => {
    expect(encodingHint(Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(text)]))).toMatch(/UTF-16 byte-order mark \(little-endian\).*iconv/);
    expect(encodingHint(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(text)]))).toMatch(/UTF-16 byte-order mark \(big-endian\)/);
  });
  it("names UTF-16 without a byte-order mark by its NUL bytes", () => {
    expect(encodingHint(utf16le(text))).toMatch(/every other byte is 0.*little-endian.*UTF-16LE/);
    expect(encodingHint(utf16be(text))).toMatch(/big-endian.*UTF-16BE/);
  });
  it("names lines broken by CR alone, and says nothing for LF or CRLF", () => {
    expect(encodingHint(Buffer.from(text.replace(/\n/g, "\r")))).toMatch(/CR alone/);
    expect(encodingHint(Buffer.from(text))).toBe("");
    expect(encodingHint(Buffer.from(text.replace(/\n/g, "\r\n")))).toBe("");
    expect(encodingHint(Buffer.from('{"a": 1,'))).toBe("");
    expect(encodingHint(new Uint8Array(0))).toBe("");
  });
  it("names CR-only breaks whatever the first record's length (new user 35: none past a 512-byte first record)", () => {
    for (const pad of [300, 500, 1000, 5000]) {
      const big = (i: number) => JSON.stringify({ id: `a${i}`, pad: "x".repeat(pad), messages: [{ role: "user", content: "hi" }] });
      const crText = [0, 1, 2].map(big).join("\r");
      expect(encodingHint(Buffer.from(crText))).toMatch(/CR alone \(old Mac line breaks: 2 CR breaks without LF here\)/);
    }
    // a line whose only CR is its last byte is not CR-broken
    expect(encodingHint(Buffer.from('{"a": 1,\r'))).toBe("");
  });
  it("a stray NUL in UTF-8 text is not UTF-16", () => {
    expect(encodingHint(Buffer.from(`{"a":"x\u0000y", "messages": []}`))).toBe("");
  });
});

describe("the hint reaches the error of each format", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "enc-hint-"));
    await writeFile(path.join(dir, "bom.jsonl"), Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(text)]));
    await writeFile(path.join(dir, "le.jsonl"), utf16le(text));
    await writeFile(path.join(dir, "cr.jsonl"), text.replace(/\n/g, "\r"));
    await writeFile(path.join(dir, "run.json"), Buffer.concat([Buffer.from([0xff, 0xfe]), utf16le(JSON.stringify({ messages: [] }))]));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  it("chat-jsonl detection, a chat-jsonl line, an AgentDojo file", async () => {
    const got: Record<string, string> = {};
    for await (const it of readTrajectories([dir]) as AsyncIterable<IngestItem>) {
      if (it.kind === "error") got[path.basename(it.error.path)] = `${it.error.kind}: ${it.error.message}`;
    }
    // not JSON as UTF-8 at all: invalid_json (was unknown_format, "has no messages"), the hint kept (new user 45)
    expect(got["bom.jsonl"]).toMatch(/^invalid_json: .*lines is JSON: not a JSON Lines trajectory file; the bytes start with a UTF-16 byte-order mark/);
    expect(got["le.jsonl"]).toMatch(/^invalid_json: .*lines is JSON: not a JSON Lines trajectory file; every other byte is 0/);
    expect(got["cr.jsonl"]).toMatch(/^invalid_json: .*CR alone/);
    expect(got["run.json"]).toMatch(/^invalid_utf8: .*UTF-16 byte-order mark/);
  });
});
