import { createWriteStream, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  chatFallbackIdPath,
  countInputs,
  IngestFatalError,
  inputFiles,
  readTrajectories,
  type IngestItem,
  type ReadOptions,
} from "../../src/ingest/index.js";
import { CORPUS } from "../helpers/paths.js";

const REAL = path.join(
  CORPUS,
  "runs/gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3.json",
);
const realText = readFileSync(REAL, "utf8");
const realRun = JSON.parse(realText);
/** The line of byte 100 of the real file (where e-utf8.json gets its bad bytes). */
const utf8Line = realText.slice(0, 100).split("\n").length;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ingest-index-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(paths: string[], opts: ReadOptions = {}): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readTrajectories(paths, opts)) out.push(it);
  return out;
}
const summary = (items: IngestItem[]) =>
  items.map((i) => (i.kind === "trajectory" ? `ok ${i.trajectory.id}` : `${i.error.kind} ${path.basename(i.error.path)}${i.error.line ? `:${i.error.line}` : ""}`));

const line = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, messages: [{ role: "user", content: `hello ${id}` }], ...extra });

async function put(rel: string, data: string | Buffer): Promise<string> {
  const p = path.join(dir, rel);
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, data);
  return p;
}

describe("a directory with mixed good and bad files", () => {
  let mixed: string;
  beforeAll(async () => {
    mixed = path.join(dir, "mixed");
    await put("mixed/a-good.json", realText);
    await put("mixed/b-truncated.json", realText.slice(0, realText.length / 2));
    await put("mixed/c-empty.json", "");
    await put("mixed/d-wrongtypes.json", JSON.stringify({ ...realRun, messages: [{ role: 7, content: [1] }] }));
    await put("mixed/e-utf8.json", Buffer.concat([Buffer.from(realText.slice(0, 100)), Buffer.from([0xff, 0xfe]), Buffer.from(realText.slice(100))]));
    // Line 7 holds raw invalid UTF-8 bytes (an overlong encoding of "/").
    const badUtf8 = Buffer.concat([Buffer.from('{"id":"L7","messages":[{"role":"user","content":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}]}')]);
    const lines: Array<string | Buffer> = [
      line("L1"),
      "",
      "   ",
      '{"id": "L4", "messages": [{"role": "user", "content": "trunc',
      line("L5", { messages: [{ role: "wizard", content: "x" }] }),
      line("L1"),
      badUtf8,
      line("L8", { messages: [] }),
      line("L9"),
    ];
    await put("mixed/f-lines.jsonl", Buffer.concat(lines.flatMap((l) => [Buffer.from(l), Buffer.from("\n")])));
    await put("mixed/g-manifest.jsonl", '{"path": "runs/x.json", "n_messages": 3}\n{"path": "runs/y.json"}\n');
    await put("mixed/h-empty.jsonl", "\n\n");
    await put("mixed/notes.txt", "not read: directories keep only .json/.jsonl");
    await put("mixed/.hidden.json", "{");
    await put("mixed/sub/z-good.jsonl", line("Z1") + "\r\n" + line("Z2") + "\r\n");
  });

  it("every bad file or line is one error with its kind; the good items still come out, in sorted order", async () => {
    const items = await readAll([mixed]);
    expect(summary(items)).toEqual([
      "ok a-good",
      "invalid_json b-truncated.json",
      "invalid_json c-empty.json",
      "schema d-wrongtypes.json",
      `invalid_utf8 e-utf8.json:${utf8Line}`,
      "ok L1",
      "invalid_json f-lines.jsonl:4",
      "schema f-lines.jsonl:5",
      "duplicate_id f-lines.jsonl:6",
      "invalid_utf8 f-lines.jsonl:7",
      "no_messages f-lines.jsonl:8",
      "ok L9",
      "unknown_format g-manifest.jsonl",
      "invalid_json h-empty.jsonl",
      "ok Z1",
      "ok Z2",
    ]);
  });

  it("error messages name the file, the line or message index, and what is wrong", async () => {
    const items = await readAll([mixed]);
    const errs = items.flatMap((i) => (i.kind === "error" ? [i.error] : []));
    const by = (name: string, ln?: number) => errs.find((e) => path.basename(e.path) === name && e.line === ln)!;
    expect(by("c-empty.json").message).toMatch(/c-empty\.json: empty input/);
    expect(by("d-wrongtypes.json").message).toContain("messages[0].role: must be one of");
    expect(by("d-wrongtypes.json").message_index).toBe(0);
    expect(by("e-utf8.json", utf8Line).message).toContain(`invalid UTF-8 byte 0xff at byte 100 (line ${utf8Line})`);
    expect(by("f-lines.jsonl", 5).message).toMatch(/f-lines\.jsonl:5: messages\[0\]\.role: must be one of .*\(got "wizard"\)/);
    expect(by("f-lines.jsonl", 5).message_index).toBe(0);
    expect(by("f-lines.jsonl", 6).message).toContain('duplicate trajectory id "L1"');
    expect(by("f-lines.jsonl", 6).trajectory_id).toBe("L1");
    expect(by("f-lines.jsonl", 7).message).toContain("f-lines.jsonl:7: invalid UTF-8");
    expect(by("g-manifest.jsonl").message).toContain(
      "none of its 2 non-blank lines has `messages`: not a chat-jsonl trajectory file (e.g. a manifest); pass `--format chat-jsonl` to force it",
    );
    for (const e of errs) expect(e.message.startsWith(e.path)).toBe(true);
  });

  it("CRLF line endings are read; the line number is kept on the trajectory", async () => {
    const items = await readAll([path.join(mixed, "sub", "z-good.jsonl")]);
    const t = items[1].kind === "trajectory" ? items[1].trajectory : undefined;
    expect(t?.source.line).toBe(2);
    expect(t?.messages[0].text).toBe("hello Z2");
  });

  it("countInputs predicts the number of items", async () => {
    const items = await readAll([mixed]);
    expect(await countInputs([mixed])).toBe(items.length);
  });

  it("strict: the first error throws IngestFatalError carrying the error; items before it were yielded", async () => {
    const seen: string[] = [];
    let thrown: unknown;
    try {
      for await (const it of readTrajectories([mixed], { strict: true })) seen.push(it.kind);
    } catch (e) {
      thrown = e;
    }
    expect(seen).toEqual(["trajectory"]);
    expect(thrown).toBeInstanceOf(IngestFatalError);
    expect((thrown as IngestFatalError).error.kind).toBe("invalid_json");
    expect((thrown as IngestFatalError).message).toContain("b-truncated.json");
  });

  it("format override: a manifest read as chat-jsonl gives one schema error per line", async () => {
    const p = path.join(mixed, "g-manifest.jsonl");
    const items = await readAll([p], { format: "chat-jsonl" });
    expect(summary(items)).toEqual(["schema g-manifest.jsonl:1", "schema g-manifest.jsonl:2"]);
    expect(items[0].kind === "error" && items[0].error.message).toContain("messages: is required");
    expect(await countInputs([p], { format: "chat-jsonl" })).toBe(2);
  });
});

describe("format detection from a sample of lines", () => {
  it("a bad FIRST line is its own error naming the line; the later lines are still read", async () => {
    const a = await put("detect/bad-first.jsonl", `{"id":"bad1","msgs":[]}\n${line("V2")}\n`);
    const b = await put("detect/trunc-first.jsonl", `{"id":"b1","mess\n\n${line("V3")}\n`);
    const items = await readAll([a, b]);
    expect(summary(items)).toEqual(["schema bad-first.jsonl:1", "ok V2", "invalid_json trunc-first.jsonl:1", "ok V3"]);
    expect(items[0].kind === "error" && items[0].error.message).toBe(`${a}:1: messages: is required`);
    expect(items[0].kind === "error" && items[0].error.trajectory_id).toBe("bad1");
    expect(items[2].kind === "error" && items[2].error.message.startsWith(`${b}:1: `)).toBe(true);
    expect(await countInputs([a, b])).toBe(items.length);
  });

  it("the real AgentDojo manifest.jsonl is ONE unknown_format error naming `--format chat-jsonl`, not one per line", async () => {
    const manifest = path.join(CORPUS, "manifest.jsonl");
    const items = await readAll([manifest]);
    expect(summary(items)).toEqual(["unknown_format manifest.jsonl"]);
    expect(items[0].kind === "error" && items[0].error.message).toBe(
      `${manifest}: none of its first 20 non-blank lines has \`messages\`: not a chat-jsonl trajectory file (e.g. a manifest); pass \`--format chat-jsonl\` to force it`,
    );
    expect(await countInputs([manifest])).toBe(1);
  });

  it("the sample is the first 20 non-blank lines: `messages` on line 20 makes it chat-jsonl, on line 21 it does not", async () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ path: `runs/${i}.json` }) + "\n\n").join("");
    const at20 = await put("detect/at20.jsonl", rows(19) + line("M20") + "\n");
    const at21 = await put("detect/at21.jsonl", rows(20) + line("M21") + "\n");
    const s20 = summary(await readAll([at20]));
    expect(s20).toHaveLength(20);
    expect(s20.slice(0, 2)).toEqual(["schema at20.jsonl:1", "schema at20.jsonl:3"]);
    expect(s20[19]).toBe("ok M20");
    expect(summary(await readAll([at21]))).toEqual(["unknown_format at21.jsonl"]);
    // one line only, without messages: one unknown_format
    const one1 = await put("detect/one.jsonl", '{"path": "x"}\n');
    const r = await readAll([one1]);
    expect(r[0].kind === "error" && r[0].error.message).toContain("its only non-blank line has no `messages`");
  });

  it("a .jsonl none of whose sampled lines is JSON is invalid_json naming the first bad line, not 'has no messages' (new user 45)", async () => {
    const one = await put("detect/notjson1.jsonl", "not json\n");
    const r1 = await readAll([one]);
    expect(summary(r1)).toEqual(["invalid_json notjson1.jsonl:1"]);
    expect(r1[0].kind === "error" && r1[0].error.message).toMatch(/notjson1\.jsonl:1: its only non-blank line is not JSON \(.+\): not a JSON Lines trajectory file$/);
    const several = await put("detect/notjson3.jsonl", "\n\na b\nc\n\n{d\n");
    const r3 = await readAll([several]);
    expect(summary(r3)).toEqual(["invalid_json notjson3.jsonl:3"]);
    expect(r3[0].kind === "error" && r3[0].error.message).toMatch(/notjson3\.jsonl:3: none of its 3 non-blank lines is JSON \(line 3: .+\): not a JSON Lines trajectory file$/);
    // one JSON line without messages among bad ones: still "has no messages" (it is JSON Lines of something else)
    const mixed = await put("detect/mixed.jsonl", '{"path": "x"}\nnope\n');
    const rm = await readAll([mixed]);
    expect(summary(rm)).toEqual(["unknown_format mixed.jsonl"]);
  });

  it("a file of another extension names the --format option", async () => {
    const p = await put("detect/data.txt", line("T") + "\n");
    const items = await readAll([p]);
    expect(items[0].kind === "error" && items[0].error.message).toContain("pass `--format agentdojo|chat-jsonl|inspect|shell`");
  });
});

describe("paths", () => {
  it("a missing path is a read_error item, not a throw; the other paths are still read", async () => {
    const good = await put("paths/one.jsonl", line("P1") + "\n");
    const items = await readAll([path.join(dir, "nope"), good]);
    expect(summary(items)).toEqual(["read_error nope", "ok P1"]);
    expect(await countInputs([path.join(dir, "nope"), good])).toBe(2);
  });

  it("an explicit file with another extension is unknown_format unless a format is given", async () => {
    const p = await put("paths/data.txt", line("T1") + "\n");
    expect(summary(await readAll([p]))).toEqual(["unknown_format data.txt"]);
    expect(summary(await readAll([p], { format: "chat-jsonl" }))).toEqual(["ok T1"]);
  });

  it("duplicate ids across files: the first is kept, the second is an error", async () => {
    const a = await put("dups/a.jsonl", line("D") + "\n");
    const b = await put("dups/b.jsonl", line("D") + "\n" + line("E") + "\n");
    expect(summary(await readAll([path.join(dir, "dups")]))).toEqual(["ok D", "duplicate_id b.jsonl:1", "ok E"]);
    // the same file given twice: read once, said as duplicate_input (not an input error between two inputs)
    expect(summary(await readAll([a, a]))).toEqual(["ok D", "duplicate_input a.jsonl:1"]);
    void b;
  });

  it("chat-JSONL fallback ids depend on the file alone (path from the current directory), never on the other inputs", async () => {
    // (this test used to assert that x's rows were "data.jsonl:N" read alone and "x/data.jsonl:N" beside y: the same
    // rows under two names, judged and counted twice on resume)
    const noId = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    const x = await put("fb/x/data.jsonl", noId + "\n" + noId + "\n");
    const y = await put("fb/y/data.jsonl", noId + "\n");
    const ids = async (paths: string[]) => summary(await readAll(paths));
    const X = chatFallbackIdPath(x);
    const Y = chatFallbackIdPath(y);
    expect(X).not.toBe(Y);
    const both = [`ok ${X}:1`, `ok ${X}:2`, `ok ${Y}:1`];
    expect(await ids([x, y])).toEqual(both);
    expect(await ids([path.dirname(x), path.dirname(y)])).toEqual(both);
    expect(await ids([x])).toEqual([`ok ${X}:1`, `ok ${X}:2`]);
    expect(await ids([path.join(dir, "fb")])).toEqual(both);
    expect(await ids([y, path.join(dir, "fb", "x")])).toEqual([`ok ${Y}:1`, `ok ${X}:1`, `ok ${X}:2`]);
    // under the current directory: the relative path; elsewhere: the resolved path
    expect(chatFallbackIdPath(path.join(process.cwd(), "sub", "data.jsonl"))).toBe("sub/data.jsonl");
    expect(chatFallbackIdPath("sub/data.jsonl")).toBe("sub/data.jsonl");
    expect(X).toBe(path.relative(process.cwd(), x).startsWith("..") ? path.resolve(x).split(path.sep).join("/") : path.relative(process.cwd(), x).split(path.sep).join("/"));
  });

  it("fallback ids of AgentDojo files outside the layout are unique across inputs", async () => {
    const ids = async (paths: string[]) => summary(await readAll(paths));
    // AgentDojo files outside the layout (their folders do not match their suite_name etc.) likewise
    const run = realText;
    const ax = await put("fb/x/run.json", run);
    const ay = await put("fb/y/deeper/run.json", run);
    expect(await ids([ax, ay])).toEqual(["ok x/run", "ok y/deeper/run"]);
    // an AgentDojo layout id does not depend on the other inputs (the loose file's id is now relative to the
    // common ancestor of the shared corpus and the temp folder)
    const got = await ids([REAL, ax]);
    expect(got[0]).toBe("ok gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3");
    expect(got[1]).toMatch(/^ok [^/.][^.]*\/fb\/x\/run$/);
  });

  it("an AgentDojo run given as a file keeps its layout id; walking is sorted and follows links without looping", async () => {
    const loop = path.join(dir, "loop");
    await mkdir(loop, { recursive: true });
    await put("loop/b.jsonl", line("B") + "\n");
    await put("loop/a.jsonl", line("A") + "\n");
    await put("loop/B.jsonl", line("BB") + "\n");
    await symlink(loop, path.join(loop, "self"));
    const files = [];
    for await (const f of inputFiles([loop])) if ("file" in f) files.push(path.basename(f.file));
    expect(files).toEqual(["B.jsonl", "a.jsonl", "b.jsonl"]);
    const items = await readAll([REAL]);
    expect(summary(items)).toEqual(["ok gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3"]);
  });

  it("deeply nested JSON is read or reported, never crashes the read", async () => {
    const n = 200_000;
    const deep = "[".repeat(n) + "]".repeat(n);
    const a = await put("deep/a.json", `{"messages":[{"role":"user","content":"hi"}],"extra":${deep}}`);
    const b = await put(
      "deep/b.json",
      `{"messages":[{"role":"assistant","content":null,"tool_calls":[{"function":"f","args":{"x":${deep}},"id":"1"}]}]}`,
    );
    const c = await put("deep/c.jsonl", JSON.stringify({ id: "C", messages: [{ role: "user", content: "x" }] }).slice(0, -1) + `,"metadata":{"x":${deep}}}\n` + line("C2") + "\n");
    // Deep arguments in the third message of a chat-jsonl line (after a good line).
    const msgs = `[{"role":"user","content":"u"},{"role":"assistant","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"1","type":"function","function":{"name":"f","arguments":{"x":${deep}}}}]}]`;
    const d = await put("deep/d.jsonl", line("D1") + "\n" + `{"id":"D2","messages":${msgs}}\n`);
    const items = await readAll([a, b, c, d]);
    expect(summary(items)).toEqual(["ok a", "schema b.json", "schema c.jsonl:1", "ok C2", "ok D1", "schema d.jsonl:2"]);
    const err = (i: number) => (items[i].kind === "error" ? items[i].error : undefined);
    expect(err(1)?.message).toContain("b.json: messages[0].tool_calls[0].args: nested too deep to convert");
    expect(err(1)?.message_index).toBe(0);
    expect(err(2)?.message).toContain("metadata: nested deeper than");
    expect(err(5)?.message).toContain("d.jsonl:2: messages[2].tool_calls[0].function.arguments: nested too deep to convert");
    expect(err(5)).toMatchObject({ line: 2, message_index: 2, trajectory_id: "D2" });
  });
});

describe("size limit per item (maxItemBytes)", () => {
  it("a chat-jsonl line slightly over the limit is one too_large error naming size and limit; the other lines are read", async () => {
    const limit = 4096;
    const big = JSON.stringify({
      id: "BIG",
      messages: [
        { role: "user", content: "read the log" },
        { role: "tool", content: "x".repeat(limit) }, // a huge tool result
      ],
    });
    const p = await put("size/lines.jsonl", `${line("S1")}\n${big}\n${line("S3")}\n`);
    const items = await readAll([p], { maxItemBytes: limit });
    expect(summary(items)).toEqual(["ok S1", "too_large lines.jsonl:2", "ok S3"]);
    const e = items[1].kind === "error" ? items[1].error : undefined;
    expect(e?.message).toBe(
      `${p}:2: line is ${Buffer.byteLength(big).toLocaleString("en-US")} bytes (${(Buffer.byteLength(big) / 1024).toFixed(1)} KiB), over the limit of 4,096 bytes (4.0 KiB) per item (raise it with --max-item-mb, or the maxItemBytes read option)`,
    );
    expect(await countInputs([p], { maxItemBytes: limit })).toBe(3);
    // The default limit (64 MiB) reads it.
    expect(summary(await readAll([p]))).toEqual(["ok S1", "ok BIG", "ok S3"]);
    // A file whose FIRST line is too large is still recognised as chat-jsonl (from the line's first bytes).
    const q = await put("size/first.jsonl", `${big}\n${line("F2")}\n`);
    expect(summary(await readAll([q], { maxItemBytes: limit }))).toEqual(["too_large first.jsonl:1", "ok F2"]);
  });

  it("an AgentDojo file over the limit is too_large from its size, before it is read; at the limit it is read", async () => {
    const size = Buffer.byteLength(realText);
    const items = await readAll([REAL], { maxItemBytes: size - 1 });
    expect(items).toHaveLength(1);
    expect(items[0].kind === "error" && items[0].error).toMatchObject({ kind: "too_large", path: REAL });
    expect(items[0].kind === "error" && items[0].error.message).toContain(
      `file is ${size.toLocaleString("en-US")} bytes (${(size / 1024).toFixed(1)} KiB), over the limit of ${(size - 1).toLocaleString("en-US")} bytes`,
    );
    expect(summary(await readAll([REAL], { maxItemBytes: size }))[0]).toMatch(/^ok /);
    expect(await countInputs([REAL], { maxItemBytes: size - 1 })).toBe(1);
  });

  it("a limit that is not a positive number is refused", async () => {
    for (const bad of [0, -1, Number.NaN]) await expect(readAll([REAL], { maxItemBytes: bad })).rejects.toThrow(RangeError);
    expect(summary(await readAll([REAL], { maxItemBytes: Infinity }))[0]).toMatch(/^ok /);
  });
});

describe("streaming", () => {
  it("reads a 50,000-line generated chat-jsonl file item by item", async () => {
    const p = path.join(dir, "big.jsonl");
    const out = createWriteStream(p);
    for (let i = 0; i < 50_000; i++) {
      out.write(
        JSON.stringify({
          id: `big-${i}`,
          messages: [
            { role: "user", content: `task ${i}` },
            { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "f", arguments: `{"i":${i}}` } }] },
            { role: "tool", tool_call_id: `c${i}`, content: "x".repeat(200) },
          ],
        }) + "\n",
      );
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    expect(await countInputs([p])).toBe(50_000);
    let n = 0;
    let last = "";
    for await (const it of readTrajectories([p])) {
      if (it.kind !== "trajectory") throw new Error(it.error.message);
      n++;
      last = it.trajectory.id;
    }
    expect(n).toBe(50_000);
    expect(last).toBe("big-49999");
    // Stopping early is fine too (the file is closed by the generator's return).
    for await (const it of readTrajectories([p])) {
      expect(it.kind).toBe("trajectory");
      break;
    }
  });
});

describe("the real corpus through countInputs", () => {
  it("516 runs = 516 items: the manifest in the folder is passed over, not an item", async () => {
    expect(await countInputs([CORPUS])).toBe(516);
    // given by name, it is read (and is one unknown_format item)
    expect(await countInputs([path.join(CORPUS, "manifest.jsonl")])).toBe(1);
  });
});
