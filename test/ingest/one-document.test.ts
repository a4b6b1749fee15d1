// New user 35, L3: a pretty-printed JSON array (or object) in a .jsonl gave one invalid_json error per line (124).
// Now the file is one error saying it is one JSON document and how to make it JSON Lines.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";

const row = (id: string) => ({ id, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }] });

async function items(p: string): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readTrajectories([p]) as AsyncIterable<IngestItem>) out.push(it);
  return out;
}

async function itemsAs(p: string): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readTrajectories([p], { format: "chat-jsonl" }) as AsyncIterable<IngestItem>) out.push(it);
  return out;
}

describe("a .jsonl file that is one JSON document", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "one-doc-"));
    fs.writeFileSync(path.join(dir, "array.jsonl"), JSON.stringify([row("a"), row("b"), row("c")], null, 1) + "\n");
    fs.writeFileSync(path.join(dir, "object.jsonl"), JSON.stringify(row("a"), null, 2));
    fs.writeFileSync(path.join(dir, "broken.jsonl"), "{\n" + JSON.stringify(row("b")) + "\n");
    // `jq .` of each object, one after another (verifier 35 L5), and a manifest of one object per line
    fs.writeFileSync(path.join(dir, "several.jsonl"), [row("a"), row("b"), { note: "a { brace \" in a string" }].map((r) => JSON.stringify(r, null, 2)).join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "manifest.jsonl"), [{ id: 1, x: "{" }, { id: 2 }].map((r) => JSON.stringify(r)).join("\n") + "\n");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("a pretty-printed array: one error naming the file, the document and the jq command", async () => {
    const f = path.join(dir, "array.jsonl");
    const got = await items(f);
    expect(got).toHaveLength(1);
    const e = got[0].kind === "error" ? got[0].error : undefined;
    expect(e?.kind).toBe("invalid_json");
    expect(e?.line).toBeUndefined();
    expect(e?.message).toMatch(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: the file is one JSON document`));
    expect(e?.message).toMatch(/the file is one JSON document, an array of 3 item\(s\) \(3 with messages: trajectories\) written over \d+ lines, not JSON Lines/);
    expect(e?.message).toContain(`jq -c '.[]' ${f} > out.jsonl`);
  });

  it("a pretty-printed object: one error, jq -c .", async () => {
    const got = await items(path.join(dir, "object.jsonl"));
    expect(got).toHaveLength(1);
    expect(got[0].kind === "error" && got[0].error.message).toMatch(/one object with messages \(a trajectory\).*jq -c \. /);
  });

  it("several pretty-printed documents one after another: one error, with or without --format chat-jsonl", async () => {
    const f = path.join(dir, "several.jsonl");
    for (const got of [await items(f), await itemsAs(f)]) {
      expect(got).toHaveLength(1);
      expect(got[0].kind === "error" && got[0].error.message).toMatch(/the file holds 3 JSON documents one after another \(2 with messages: trajectories\), written over \d+ lines, not JSON Lines.*jq -c \. /);
    }
  });

  it("a JSON Lines manifest (one object per line, no messages) is not taken for documents one after another", async () => {
    const got = await items(path.join(dir, "manifest.jsonl"));
    expect(got).toHaveLength(1);
    expect(got[0].kind === "error" && got[0].error.message).toMatch(/not a chat-jsonl trajectory file \(e\.g\. a manifest\)/);
  });

  it("a file whose first line is broken but is no one document: its lines are read as before", async () => {
    const got = await items(path.join(dir, "broken.jsonl"));
    expect(got.map((x) => x.kind)).toEqual(["error", "trajectory"]);
  });
});
