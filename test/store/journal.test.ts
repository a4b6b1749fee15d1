/**
 * The run store's journal (`src/store/journal.ts`): lines written in order, several per `write(2)`, by the end of the
 * event-loop turn that appended them (or at once past ~64 KB, on flush/sync/close and at process exit); a journal
 * opened `after` others writes theirs first; a failed write is a StoreWriteError naming the file, thrown again by
 * every later append, flush and close.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Journal, StoreWriteError, syncJournals } from "../../src/store/journal.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-journal-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lines = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as unknown);
const endOfTurn = () => new Promise<void>((r) => setImmediate(r));

describe("Journal", () => {
  it("writes appended lines in order by the end of the turn", async () => {
    const f = path.join(dir, "a.jsonl");
    const j = Journal.open<{ n: number; s: string }>(f);
    for (let n = 0; n < 5; n++) j.append({ n, s: "é☃𝄞".repeat(n) });
    await endOfTurn();
    expect(lines(f)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n, s: "é☃𝄞".repeat(n) })));
    j.close();
  });

  it("writes at once when ~64 KB are pending, and the rest on close", () => {
    const f = path.join(dir, "a.jsonl");
    const j = Journal.open<{ s: string }>(f);
    for (let n = 0; n < 70; n++) j.append({ s: "x".repeat(1000) });
    expect(lines(f).length).toBeGreaterThanOrEqual(60); // before the turn ends
    j.close();
    expect(lines(f)).toHaveLength(70);
    j.close(); // twice: nothing more
  });

  it("writes the journals it is opened after first, and a write-through journal at once", () => {
    const rows = Journal.open<{ id: number }>(path.join(dir, "rows.jsonl"));
    const verdicts = Journal.open<{ id: number }>(path.join(dir, "v.jsonl"), { after: [rows as Journal<unknown>] });
    const errors = Journal.open<{ id: number }>(path.join(dir, "e.jsonl"), { after: [verdicts as Journal<unknown>], writeThrough: true });
    rows.append({ id: 1 });
    verdicts.append({ id: 1 });
    errors.append({ id: 1 });
    expect([lines(path.join(dir, "rows.jsonl")), lines(path.join(dir, "v.jsonl")), lines(path.join(dir, "e.jsonl"))]).toEqual([[{ id: 1 }], [{ id: 1 }], [{ id: 1 }]]);
    rows.append({ id: 2 });
    verdicts.flush();
    expect(lines(path.join(dir, "rows.jsonl"))).toHaveLength(2);
    expect(syncJournals([errors, verdicts, rows] as Journal<unknown>[])).toBeNull();
    for (const j of [errors, verdicts, rows]) j.close();
  });

  it("a record JSON cannot hold throws at append and keeps nothing of it", async () => {
    const f = path.join(dir, "a.jsonl");
    const j = Journal.open<unknown>(f);
    j.append({ a: 1 });
    expect(() => j.append({ b: 1n })).toThrow(TypeError);
    j.append({ c: 1 });
    await endOfTurn();
    expect(lines(f)).toEqual([{ a: 1 }, { c: 1 }]);
    j.close();
  });

  it("leaves whole lines only and cuts a partial last line on open", () => {
    const f = path.join(dir, "a.jsonl");
    fs.writeFileSync(f, '{"a":1}\n{"a":2');
    const j = Journal.open<{ a: number }>(f);
    j.append({ a: 3 });
    j.close();
    expect(lines(f)).toEqual([{ a: 1 }, { a: 3 }]);
  });

  it("keeps a whole last record that lacks only its newline (a script's join), and ends it (brk40: it was cut)", () => {
    const f = path.join(dir, "a.jsonl");
    fs.writeFileSync(f, '{"a":1}\n{"a":2}');
    const j = Journal.open<{ a: number }>(f);
    j.append({ a: 3 });
    j.close();
    expect(lines(f)).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    // a torn one (a prefix of a record is never one JSON object) is cut as before
    fs.writeFileSync(f, '{"a":1}\n{"a":2,"b":[1');
    Journal.open<{ a: number }>(f).close();
    expect(fs.readFileSync(f, "utf8")).toBe('{"a":1}\n');
  });

  it("writes pending lines when the process exits at once (process.exit, a second Ctrl-C)", () => {
    const f = path.join(dir, "a.jsonl");
    const src = path.resolve("src/store/journal.ts");
    // 70 lines of ~1 KB: ~64 of them written at once in the turn, the rest pending when the process exits
    const code = `import { Journal } from ${JSON.stringify(src)}; const j = Journal.open(${JSON.stringify(f)}); for (let a = 0; a < 70; a++) j.append({ a, s: "x".repeat(1000) }); process.exit(3);`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(3);
    expect(lines(f).map((l) => (l as { a: number }).a)).toEqual([...Array(70).keys()]);
  });

  it.skipIf(!fs.existsSync("/dev/full"))("names the file of a write that fails at the end of a turn, and throws it again", async () => {
    const j = Journal.open<{ a: number }>("/dev/full");
    j.append({ a: 1 });
    await endOfTurn();
    expect(() => j.append({ a: 2 })).toThrow(StoreWriteError);
    expect(() => j.append({ a: 2 })).toThrow(/cannot write \/dev\/full: no space left on device/);
    expect(() => j.close()).toThrow(StoreWriteError);
    expect(() => j.close()).not.toThrow();
  });

  it.skipIf(!fs.existsSync("/dev/full"))("a journal written after a failed one writes nothing more", () => {
    const rows = Journal.open<{ a: number }>("/dev/full");
    const v = Journal.open<{ a: number }>(path.join(dir, "v.jsonl"), { after: [rows as Journal<unknown>] });
    rows.append({ a: 1 });
    v.append({ a: 1 });
    expect(() => v.flush()).toThrow(/\/dev\/full/);
    expect(syncJournals([v, rows] as Journal<unknown>[])).toBeInstanceOf(StoreWriteError);
    expect(() => v.close()).toThrow(StoreWriteError);
    expect(() => rows.close()).toThrow(StoreWriteError);
    expect(fs.readFileSync(path.join(dir, "v.jsonl"), "utf8")).toBe("");
  });
});
