/**
 * `label`'s exit code for a trajectory that could not be prepared (errors.jsonl `prepare_failed`; red team 42), end
 * to end through the CLI (`main`, as the shell runs it: option parsing, the summary, the exit code and its stderr
 * line) with an LLM judge given by a --judges file: the real `openai` client against a loopback server counting the
 * requests. Only the fault itself is scripted (a module mock of the tool-description detector, the step that
 * overflowed the stack on a 5 MB "a.a.a..." description): every input known to make preparation throw is fixed, and
 * fix43 found none left (tool-call arguments and tool schemas nested 100,000 deep are refused by the read as schema
 * errors; arguments given as a string that deep are judged).
 * Session 42's test of the path called `labelRun` and never saw the exit code.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.mock("../../src/serialize/instructing.js", async (orig) => {
  const real = await orig<typeof import("../../src/serialize/instructing.js")>();
  return {
    ...real,
    withInstructingDescriptions: (t: { id: string }) => {
      if (t.id === "boom") throw new RangeError("Maximum call stack size exceeded");
      return real.withInstructingDescriptions(t as never);
    },
  };
});

import { main } from "../../src/cli/main.js";
import { clearJournalSkips } from "../../src/store/skipped-lines.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const so = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => ((stdout += String(c)), true));
  const se = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
  try {
    clearJournalSkips(); // one command per process, as from the shell
    return { code: await main(args), stdout, stderr };
  } finally {
    so.mockRestore();
    se.mockRestore();
    process.exitCode = undefined;
  }
}

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing happened" });
let fake: FakeOpenAI;
let tmp: string;
let judges: string;
beforeAll(async () => {
  fake = await startFakeOpenAI(() => completion(REPLY));
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-prepare-failed-cli-"));
  judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "j", model: "m", family: "openai", base_url: fake.url, concurrency: 1, output_mode: "json_object" }] }));
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const line = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: `task of ${id}` }, { role: "assistant", content: "done" }] });
const jsonl = (f: string) => fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

function inputs(name: string): string {
  const d = path.join(tmp, "in", name);
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(d, "a.jsonl"), ["a1", "boom", "a2"].map(line).join("\n") + "\n");
  fs.writeFileSync(path.join(d, "b.jsonl"), line("b1") + "\n");
  return d;
}

const STDERR_LINE = "ipi-judge: 1 trajectory(ies) could not be prepared for judging and were not judged (errors.jsonl, kind prepare_failed, naming each and the fault); the others were judged\n";

describe("label: a trajectory that could not be prepared, through the CLI", () => {
  it("exit 1 with its stderr line; the others judged (one request each) and stored; the summary's ITEM ERROR; the same on a resume, which sends nothing again", async () => {
    const labels = path.join(tmp, "labels");
    const input = inputs("text");
    const args = ["label", input, "--judges", judges, "--run", "p", "--labels-dir", labels, "--progress", "off"];
    const first = await cli(args);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(STDERR_LINE);
    expect(first.stderr).toContain("ITEM ERROR: 1 trajectory(ies) could not be prepared for judging");
    expect(first.stdout).toContain("errors: 1 (prepare_failed 1); see errors.jsonl");
    expect(fake.requests.length).toBe(3);
    const dir = path.join(labels, "p");
    expect(jsonl(path.join(dir, "verdicts.jsonl")).map((v) => [v.trajectory_id, v.status]).sort()).toEqual([["a1", "ok"], ["a2", "ok"], ["b1", "ok"]]);
    const errs = jsonl(path.join(dir, "errors.jsonl"));
    expect(errs.map((e) => [e.kind, e.trajectory_id, e.line])).toEqual([["prepare_failed", "boom", 2]]);
    expect(errs[0].message).toMatch(/^preparing trajectory "boom" of .*a\.jsonl:2 failed: Maximum call stack size exceeded; it is not judged/);

    // a resume meets the same fault: the same exit and line, every paid verdict kept, nothing sent again
    const again = await cli(args);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(STDERR_LINE);
    expect(fake.requests.length).toBe(3);
    expect(jsonl(path.join(dir, "verdicts.jsonl"))).toHaveLength(3);
  });

  it("--json: exit 1, the JSON summary on stdout carries the ITEM ERROR warning; --strict stops at it (exit 1, nothing after it judged)", async () => {
    const labels = path.join(tmp, "labels-json");
    const before = fake.requests.length;
    const r = await cli(["label", inputs("json"), "--judges", judges, "--run", "p", "--labels-dir", labels, "--progress", "off", "--json"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(STDERR_LINE);
    const out = JSON.parse(r.stdout);
    expect(JSON.stringify(out)).toContain("ITEM ERROR: 1 trajectory(ies) could not be prepared for judging");
    expect(fake.requests.length - before).toBe(3);

    const strict = await cli(["label", inputs("strict"), "--judges", judges, "--run", "s", "--labels-dir", labels, "--progress", "off", "--strict"]);
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stderr).toMatch(/preparing trajectory "boom"/);
    expect(strict.stderr).not.toContain(STDERR_LINE);
  });
});
