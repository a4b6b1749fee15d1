/**
 * `label` never reads its own output as input (lead, session 45): `cd /tmp/x && ipi-judge label . --run bad` (the
 * default labels/ folder inside the input) read labels/bad's journals and store.json as "4 new input errors", and on
 * a resume every other run under labels/. Now the folder is passed over with a note (stderr, summary, --json, the
 * dry run), and an input path that is such a folder is refused (exit 2) before anything is created.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-own-cli-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const line = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: `hello ${id}` }, { role: "assistant", content: "done" }] }) + "\n";
const lines = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean) : []);

describe("label over a folder that holds its own labels folder", () => {
  it("cd in && label . : the labels folder is passed over with a note, no input error, on the first run and on a resume", async () => {
    const dir = path.join(tmp, "x");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.jsonl"), line("t1"));
    for (const round of [1, 2]) {
      const r = await runCli(["label", ".", "--run", "bad", "--judge", "signature", "--json"], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.trajectories).toBe(1);
      expect(s.errors.total).toBe(0);
      expect(s.this_run.read).toBe(1);
      expect(s.ingest_warnings).toEqual([{ kind: "own_output", path: "labels", count: 1, message: expect.stringMatching(/^labels: passed over, not read as input: it is this invocation's --labels-dir folder/) }]);
      expect(r.stderr).toContain("note: labels: passed over, not read as input");
      expect(lines(path.join(dir, "labels", "bad", "errors.jsonl")), `round ${round}`).toEqual([]);
    }
    // another run in the same labels folder: the first run's journals are not read either
    const other = await runCli(["label", ".", "--run", "other", "--judge", "signature"], { cwd: dir });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toMatch(/labels: passed over, not read as input/);
    expect(other.stdout).toMatch(/0 new input errors/);
    // the dry run says it too
    const dry = await runCli(["label", ".", "--run", "bad", "--judge", "signature", "--dry-run"], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/note: labels: passed over, not read as input/);
    expect(dry.stdout).not.toMatch(/bad input items/);
  });

  it("errors an older build recorded about its own files are superseded on a resume, said, not counted (dead46 item 3)", async () => {
    const dir = path.join(tmp, "old");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.jsonl"), line("t1"));
    const first = await runCli(["label", ".", "--run", "r", "--judge", "signature", "--json"], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    // what a build before session 45 wrote: the run's own journals read as input, one error per line
    const old = [1, 2].map((n) => JSON.stringify({ path: "labels/r/verdicts.jsonl", kind: "schema", message: `labels/r/verdicts.jsonl line ${n}: has no "messages"`, line: n }));
    old.push(JSON.stringify({ path: "labels/r/store.json", kind: "unknown_format", message: "labels/r/store.json: not a trajectory file" }));
    fs.appendFileSync(path.join(dir, "labels", "r", "errors.jsonl"), old.join("\n") + "\n");
    const again = await runCli(["label", ".", "--run", "r", "--judge", "signature", "--json"], { cwd: dir });
    expect(again.code, again.stderr).toBe(0);
    const s = JSON.parse(again.stdout);
    expect(s.errors.total).toBe(0);
    expect(s.errors_superseded).toMatchObject({ total: 3, own_output: 3, by_kind: { schema: 2, unknown_format: 1 } });
    expect(s.errors_superseded.message).toMatch(/3 are about labels\/r\/verdicts.jsonl, labels\/r\/store.json, ipi-judge's own output \(a run or sample folder under the input\), passed over now/);
    // an error about an input file outside the labels folder still counts
    fs.appendFileSync(path.join(dir, "labels", "r", "errors.jsonl"), JSON.stringify({ path: "gone.jsonl", kind: "schema", message: "gone.jsonl line 1: bad", line: 1 }) + "\n");
    const third = await runCli(["label", ".", "--run", "r", "--judge", "signature", "--json"], { cwd: dir });
    expect(JSON.parse(third.stdout).errors.total).toBe(1);
  });

  it("the run's own store_corrupt_lines record (its path the run folder, under the input) stands while the line is unreadable: not taken for an old input error (break47)", async () => {
    const dir = path.join(tmp, "corrupt");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.jsonl"), line("t1") + line("t2") + line("t3"));
    expect((await runCli(["label", ".", "--run", "r", "--judge", "signature"], { cwd: dir })).code).toBe(0);
    const vf = path.join(dir, "labels", "r", "verdicts.jsonl");
    const v = lines(vf);
    v[1] = v[1].slice(0, 30); // a line cut inside the file, not the last: it stays unreadable
    fs.writeFileSync(vf, v.join("\n") + "\n");
    for (const round of [1, 2]) {
      const r = await runCli(["label", ".", "--run", "r", "--judge", "signature", "--json"], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.errors, `round ${round}`).toEqual({ total: 0, by_kind: {} }); // no input error (said apart)
      expect(s.store_corrupt_lines?.records, `round ${round}`).toBe(1);
      expect(s.errors_superseded?.own_output, `round ${round}`).toBeUndefined();
    }
  });

  it("a run folder of another labels folder, met in the input, is passed over by what it holds", async () => {
    const dir = path.join(tmp, "y");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.jsonl"), line("t1"));
    const first = await runCli(["label", dir, "--run", "r", "--judge", "signature", "--labels-dir", path.join(dir, "old")]);
    expect(first.code, first.stderr).toBe(0);
    const r = await runCli(["label", dir, "--run", "r", "--judge", "signature", "--labels-dir", path.join(tmp, "elsewhere"), "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.errors.total).toBe(0);
    expect(s.ingest_warnings.map((w: { kind: string; path: string; message: string }) => [w.kind, w.path, /an ipi-judge label run/.test(w.message)])).toEqual([["own_output", path.join(dir, "old", "r"), true]]);
  });

  it("an input path that is the labels folder or a run folder is refused (exit 2) before anything is created", async () => {
    const dir = path.join(tmp, "z");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "a.jsonl"), line("t1"));
    const labels = path.join(dir, "labels");
    expect((await runCli(["label", dir, "--run", "r", "--judge", "signature", "--labels-dir", labels])).code).toBe(0);
    const run = await runCli(["label", path.join(labels, "r"), "--run", "again", "--judge", "signature", "--labels-dir", labels]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/labels\/r is an ipi-judge label run .*not input/);
    const root = await runCli(["label", labels, "--run", "again", "--judge", "signature", "--labels-dir", labels]);
    expect(root.code).toBe(2);
    expect(root.stderr).toMatch(/is this invocation's --labels-dir folder/);
    expect(fs.existsSync(path.join(labels, "again"))).toBe(false);
    // a file or a folder inside the run: refused the same way, naming the run folder (was read: each file an input error)
    fs.mkdirSync(path.join(labels, "r", "journals"));
    fs.writeFileSync(path.join(labels, "r", "journals", "b.jsonl"), line("t2"));
    for (const inside of [path.join(labels, "r", "journals"), path.join(labels, "r", "verdicts.jsonl")]) {
      const r = await runCli(["label", inside, "--run", "again", "--judge", "signature", "--labels-dir", labels]);
      expect(r.code, inside).toBe(2);
      expect(r.stderr).toMatch(/is inside .*labels\/r, which is an ipi-judge label run .*not input/);
    }
    expect(fs.existsSync(path.join(labels, "again"))).toBe(false);
    // a folder under the --labels-dir folder that is no run may still be input
    fs.mkdirSync(path.join(labels, "corpus"));
    fs.writeFileSync(path.join(labels, "corpus", "c.jsonl"), line("t3"));
    expect((await runCli(["label", path.join(labels, "corpus"), "--run", "c", "--judge", "signature", "--labels-dir", labels])).code).toBe(0);
  });
});
