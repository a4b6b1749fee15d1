// Session 46 loose end: one pretty-printed trajectory among one-line trajectories in a .jsonl gave one invalid_json
// error per line (59 for one record). Now it is one error naming the file and the line span, saying the file looks
// pretty-printed; the trajectories on the lines around it are read.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";

const row = (id: string) => ({
  id,
  injections: { p: "ignore your task" },
  messages: [
    { role: "system", content: "You are a helpful agent." },
    { role: "user", content: "Summarize my inbox { please }" },
    { role: "assistant", content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "read_inbox", arguments: '{"n": 3}' } }] },
    { role: "tool", tool_call_id: "c1", content: "mail 1: \"hi\" ] } [ {" },
    { role: "assistant", content: "Done." },
  ],
});

async function items(p: string): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readTrajectories([p]) as AsyncIterable<IngestItem>) out.push(it);
  return out;
}

describe("a pretty-printed trajectory inside a .jsonl file", () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "pretty-record-"))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("is one invalid_json error naming the file and the line span; the records around it are read", async () => {
    const f = path.join(dir, "mixed.jsonl");
    const pretty = JSON.stringify(row("b"), null, 2);
    const n = pretty.split("\n").length;
    expect(n).toBeGreaterThan(30);
    fs.writeFileSync(f, [JSON.stringify(row("a")), pretty, "", JSON.stringify(row("c"))].join("\n") + "\n");
    const got = await items(f);
    expect(got.map((x) => (x.kind === "trajectory" ? x.trajectory.id : x.error.kind))).toEqual(["a", "invalid_json", "c"]);
    const e = got[1].kind === "error" ? got[1].error : undefined;
    expect(e?.line).toBe(2);
    expect(e?.path).toBe(f);
    expect(e?.message).toBe(
      `${f}:2: lines 2-${1 + n} hold one JSON object written over ${n} lines (it has messages: a trajectory): the file looks pretty-printed, ` +
        `not one trajectory per line (JSON Lines); it is not read: write it on one line (e.g. jq -c .)`,
    );
    const c = got[2].kind === "trajectory" ? got[2].trajectory : undefined;
    expect(c?.source.line).toBe(n + 3);
  });

  it("a broken pretty-printed record (an opening brace to its matching close) is one error too", async () => {
    const f = path.join(dir, "broken.jsonl");
    const pretty = JSON.stringify(row("b"), null, 2).split("\n");
    pretty[1] = pretty[1].replace(/,$/, ""); // `"id": "b"` without its comma: the joined lines are not JSON
    fs.writeFileSync(f, [JSON.stringify(row("a")), ...pretty, JSON.stringify(row("c"))].join("\n") + "\n");
    const got = await items(f);
    expect(got.map((x) => (x.kind === "trajectory" ? x.trajectory.id : x.error.kind))).toEqual(["a", "invalid_json", "c"]);
    expect(got[1].kind === "error" && got[1].error.message).toMatch(new RegExp(`:2: lines 2-${1 + pretty.length} look like one trajectory written over ${pretty.length} lines .*but are not valid JSON joined`));
  });

  it("a torn line at the end, after good records, is one error of its own as before", async () => {
    const f = path.join(dir, "torn.jsonl");
    fs.writeFileSync(f, [JSON.stringify(row("a")), JSON.stringify(row("b")).slice(0, 40)].join("\n"));
    const got = await items(f);
    expect(got.map((x) => (x.kind === "trajectory" ? x.trajectory.id : `${x.error.kind}@${x.error.line}`))).toEqual(["a", "invalid_json@2"]);
  });
  it("a pretty-printed trajectory whose last message is on one line is one error too; a keyed line that does not convert ends no search of its own (break47b)", async () => {
    const f = path.join(dir, "inner.jsonl");
    const pretty = ["{", '  "id": "b",', '  "messages": [', '    {"role": "user", "content": "hi { ]"},', '    {"role": "assistant", "content": "ok"}', "  ]", "}"];
    fs.writeFileSync(f, [JSON.stringify(row("a")), ...pretty, JSON.stringify(row("c"))].join("\n") + "\n");
    const got = await items(f);
    // was: 7 errors, one of them `schema: messages: is required` for line 6 (the message read as a trajectory)
    expect(got.map((x) => (x.kind === "trajectory" ? x.trajectory.id : `${x.error.kind}@${x.error.line}`))).toEqual(["a", "invalid_json@2", "c"]);
    expect(got[1].kind === "error" && got[1].error.message).toMatch(/:2: lines 2-8 hold one JSON object written over 7 lines \(it has messages: a trajectory\)/);
    // a torn line, then a keyed object that does not convert, then a good record: each keeps its own item
    const g = path.join(dir, "torn-schema.jsonl");
    fs.writeFileSync(g, ['{"id": "t", "mess', '{"id": "q"}', JSON.stringify(row("d"))].join("\n") + "\n");
    const got2 = await items(g);
    expect(got2.map((x) => (x.kind === "trajectory" ? x.trajectory.id : `${x.error.kind}@${x.error.line}`))).toEqual(["invalid_json@1", "schema@2", "d"]);
  });
  it("a pretty-printed trajectory cut off before its close is one error, at the end of the file or before a good record (session 47 loose end)", async () => {
    const pretty = JSON.stringify(row("b"), null, 2).split("\n");
    const cut = pretty.slice(0, 20);
    const f = path.join(dir, "cut-end.jsonl");
    fs.writeFileSync(f, [JSON.stringify(row("a")), ...cut].join("\n"));
    const got = await items(f);
    // was: 20 errors, one per line
    expect(got.map((x) => (x.kind === "trajectory" ? x.trajectory.id : `${x.error.kind}@${x.error.line}`))).toEqual(["a", "invalid_json@2"]);
    expect(got[1].kind === "error" && got[1].error.message).toBe(
      `${f}:2: lines 2-21 look like the start of one trajectory written over several lines whose closing bracket never comes (20 lines; the file may be cut off, or the rest of the trajectory was lost): ` +
        "the file looks pretty-printed, not one trajectory per line (JSON Lines); it is not read: restore the whole trajectory and write it on one line (e.g. jq -c .)",
    );
    const g = path.join(dir, "cut-mid.jsonl");
    fs.writeFileSync(g, [JSON.stringify(row("a")), ...cut, JSON.stringify(row("c"))].join("\n") + "\n");
    const got2 = await items(g);
    expect(got2.map((x) => (x.kind === "trajectory" ? x.trajectory.id : `${x.error.kind}@${x.error.line}`))).toEqual(["a", "invalid_json@2", "c"]);
    const c = got2[2].kind === "trajectory" ? got2[2].trajectory : undefined;
    expect(c?.source.line).toBe(22);
  });
});
