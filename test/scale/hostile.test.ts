/**
 * Hostile input at scale: real AgentDojo run logs (samples/, 82 files) mutated in every way a crawl of real
 * corpora produces — truncated, wrong types, huge strings, invalid UTF-8, deep nesting, duplicate ids, empty,
 * binary — mixed with the untouched files, through the built CLI (`ipi-judge label`, offline signature judge).
 * No crash; every bad file named in errors.jsonl; every good file labelled; nothing silently dropped.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";
import { Rand } from "../helpers/rand.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-hostile-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const lines = (f: string) =>
  fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (e.name.endsWith(".json")) out.push(p);
  }
  return out;
}

type Mutation = { name: string; mustFail: boolean; make: (bytes: Buffer, run: any, rand: Rand) => Buffer };

/** Nest `inner` `depth` levels deep in arrays. */
const nested = (depth: number, inner: string) => "[".repeat(depth) + inner + "]".repeat(depth);

const MUTATIONS: Mutation[] = [
  { name: "truncated", mustFail: true, make: (b, _r, rand) => b.subarray(0, rand.int(1, b.length - 2)) },
  { name: "truncated-in-utf8", mustFail: true, make: (b) => Buffer.concat([b.subarray(0, Math.floor(b.length / 2)), Buffer.from([0xe2, 0x80])]) },
  { name: "messages-not-array", mustFail: true, make: (_b, r) => Buffer.from(JSON.stringify({ ...r, messages: "oops" })) },
  { name: "messages-empty", mustFail: true, make: (_b, r) => Buffer.from(JSON.stringify({ ...r, messages: [] })) },
  { name: "top-level-array", mustFail: true, make: (_b, r) => Buffer.from(JSON.stringify([r])) },
  { name: "top-level-null", mustFail: true, make: () => Buffer.from("null") },
  { name: "empty", mustFail: true, make: () => Buffer.alloc(0) },
  { name: "binary", mustFail: true, make: (_b, _r, rand) => Buffer.from(Array.from({ length: 4096 }, () => rand.int(0, 255))) },
  {
    name: "invalid-utf8",
    mustFail: true,
    make: (b, _r, rand) => {
      const at = b.indexOf(Buffer.from('"content"'));
      const i = at > 0 ? at + 12 : rand.int(10, b.length - 10);
      return Buffer.concat([b.subarray(0, i), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), b.subarray(i)]);
    },
  },
  {
    name: "role-wrong-type",
    mustFail: false,
    make: (_b, r) => Buffer.from(JSON.stringify({ ...r, messages: r.messages.map((m: any, i: number) => (i === 1 ? { ...m, role: 42 } : m)) })),
  },
  {
    name: "content-wrong-type",
    mustFail: false,
    make: (_b, r) => Buffer.from(JSON.stringify({ ...r, messages: r.messages.map((m: any) => (m.role === "tool" ? { ...m, content: { x: [1, 2, { y: null }] } } : m)) })),
  },
  {
    name: "tool-calls-wrong-type",
    mustFail: false,
    make: (_b, r) => Buffer.from(JSON.stringify({ ...r, messages: r.messages.map((m: any) => (m.role === "assistant" ? { ...m, tool_calls: "call everything" } : m)) })),
  },
  { name: "injections-wrong-type", mustFail: false, make: (_b, r) => Buffer.from(JSON.stringify({ ...r, injections: ["a", 1, null] })) },
  {
    name: "huge-string",
    mustFail: false,
    make: (_b, r) => {
      const huge = "The quarterly report lists many figures. ".repeat(100_000); // 4.1 MB
      let first = true;
      const messages = r.messages.map((m: any) => (m.role === "tool" && first ? ((first = false), { ...m, content: huge }) : m));
      return Buffer.from(JSON.stringify({ ...r, messages }));
    },
  },
  {
    name: "deep-args",
    mustFail: false,
    make: (b) => {
      const s = b.toString("utf8");
      const i = s.indexOf('"args": {');
      return i < 0 ? b : Buffer.from(s.slice(0, i) + `"args": {"deep": ${nested(20_000, "1")}, ` + s.slice(i + '"args": {'.length));
    },
  },
  { name: "deep-extra", mustFail: false, make: (b) => Buffer.from(b.toString("utf8").replace(/^\{/, `{"zz_extra": ${nested(50_000, "0")}, `)) },
  { name: "nul-and-controls", mustFail: false, make: (_b, r) => Buffer.from(JSON.stringify({ ...r, messages: r.messages.map((m: any) => (m.role === "user" ? { ...m, content: `a\u0000b\u0001c\u001b[31m\ud800` } : m)) })) },
];

describe("label over mutated real AgentDojo files mixed with good ones", () => {
  it("does not crash, names every bad file in errors.jsonl, labels every good file", async () => {
    const rand = new Rand(7);
    const good = walk(path.join(SAMPLES, "runs"));
    expect(good.length).toBe(82);
    const input = path.join(tmp, "in");
    // the good files, untouched, in their AgentDojo layout
    for (const f of good) {
      const to = path.join(input, "a", path.relative(SAMPLES, f));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(f, to);
    }
    // every mutation applied to several real files, each under its own model folder (distinct ids)
    const mutants: { file: string; m: Mutation }[] = [];
    for (const [k, m] of MUTATIONS.entries()) {
      for (let j = 0; j < 3; j++) {
        const src = rand.pick(good);
        const rel = path.relative(path.join(SAMPLES, "runs"), src).split(path.sep);
        rel[0] = `${rel[0]}~mut${k}-${j}`;
        const to = path.join(input, "b", "runs", ...rel);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        const bytes = fs.readFileSync(src);
        fs.writeFileSync(to, m.make(bytes, JSON.parse(bytes.toString("utf8")), rand));
        mutants.push({ file: to, m });
      }
    }
    // duplicate ids: exact copies of good files under a second input root (same model/suite/task/attack path)
    const dups: string[] = [];
    for (let j = 0; j < 5; j++) {
      const src = good[j * 13];
      const to = path.join(input, "c", path.relative(SAMPLES, src));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(src, to);
      dups.push(to);
    }

    const labels = path.join(tmp, "labels");
    const r = await runCli(["label", path.join(input, "a"), path.join(input, "b"), path.join(input, "c"), "--run", "h", "--labels-dir", labels, "--json"], {
      timeoutMs: 300_000,
    });
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    const errors = lines(path.join(labels, "h", "errors.jsonl"));
    const verdicts = lines(path.join(labels, "h", "verdicts.jsonl"));
    const index = lines(path.join(labels, "h", "trajectories.jsonl"));
    const errPaths = new Set(errors.map((e) => path.resolve(e.path)));
    const labelledPaths = new Set(index.filter((t) => verdicts.some((v) => v.trajectory_id === t.id)).map((t) => path.resolve(t.source.path)));

    // every good file is labelled, once
    for (const f of good) expect(labelledPaths.has(path.resolve(input, "a", path.relative(SAMPLES, f)))).toBe(true);
    expect(new Set(verdicts.map((v) => v.trajectory_id)).size).toBe(verdicts.length);
    // every bad file is named in errors.jsonl; files that are odd but readable are labelled or named, never lost
    for (const { file, m } of mutants) {
      const named = errPaths.has(path.resolve(file));
      const labelled = labelledPaths.has(path.resolve(file));
      expect({ file: path.relative(input, file), mutation: m.name, accounted: named || labelled }).toMatchObject({ accounted: true });
      if (m.mustFail) expect({ mutation: m.name, named }).toEqual({ mutation: m.name, named: true });
      expect(named && labelled).toBe(false);
    }
    for (const d of dups) {
      const e = errors.find((x) => path.resolve(x.path) === path.resolve(d));
      // byte-identical copies: the same run given twice, read once (issue 23: only different content is an input error)
      expect(e?.kind).toBe("duplicate_input");
    }
    // every error names its file and says what is wrong
    for (const e of errors) {
      expect(e.path).toBeTruthy();
      expect(e.message.length).toBeGreaterThan(10);
    }
    expect(s.trajectories + errors.length).toBe(good.length + mutants.length + dups.length);
    // the huge file was labelled with an elided rendering
    const huge = mutants.filter((x) => x.m.name === "huge-string").map((x) => path.resolve(x.file));
    for (const t of index.filter((t) => huge.includes(path.resolve(t.source.path)))) {
      const v = verdicts.find((v) => v.trajectory_id === t.id)!;
      expect(v.status).toBe("ok");
    }
  }, 300_000);
});
