/**
 * `label` when every item of its input is an input error (src/cli/empty-input.ts `allInputBad`): exit 2 with a loud
 * last line, the run folder and its errors.jsonl kept (new user 48: `0 trajectories`, `errors: 4`, exit 0); an Inspect
 * log whose messages are in OpenAI's chat shape says so (src/ingest/inspect-chat-hint.ts); and the same log given twice
 * is read once, counted apart from the input errors (`read once: duplicate inputs`), exit 0 (new user 48, finding 8).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

const LOG = path.join(DATA, "inspect", "tool-poisoning-log.json");

/** The fixture log with its tool calls rewritten in OpenAI's chat shape (function: {name, arguments: "<JSON>"}, content null). */
function openAiShaped(): unknown {
  const d = JSON.parse(fs.readFileSync(LOG, "utf8"));
  for (const s of d.samples)
    for (const m of s.messages)
      if (Array.isArray(m.tool_calls)) {
        m.tool_calls = m.tool_calls.map((c: { id: string; function: string; arguments: unknown }) => ({ id: c.id, type: "function", function: { name: c.function, arguments: JSON.stringify(c.arguments) } }));
        m.content = null;
      }
  return d;
}

describe("label on an input whose every item is an input error", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-all-bad-"));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("an Inspect log in OpenAI's chat shape: exit 2, the last line says nothing was read, the error names the shape", async () => {
    const f = path.join(tmp, "openai-shaped.json");
    fs.writeFileSync(f, JSON.stringify(openAiShaped()));
    const labels = path.join(tmp, "labels");
    const r = await runCli(["label", f, "--run", "bad", "--labels-dir", labels, "--format", "inspect"]);
    expect(r.code, r.stderr).toBe(2);
    const last = r.stderr.trimEnd().split("\n").at(-1)!;
    expect(last).toMatch(/^ipi-judge: INPUT ERROR: no trajectory was read: every item of the input \(1\) was an input error .*\(exit code 2\)$/);
    // the run folder and its errors are kept: they say what was wrong
    const errors = fs.readFileSync(path.join(labels, "bad", "errors.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(errors.map((e) => e.kind)).toEqual(["schema"]);
    expect(errors[0].message).toMatch(/tool_calls\[0\]\.function: must be string \(got object\)/);
    expect(errors[0].message).toMatch(/messages\[\d+\]\.tool_calls\[0\] is in OpenAI's chat shape \(function: \{name, arguments: "<JSON text>"\}\), not Inspect's: an Inspect log's tool call is \{id, function: "name", arguments: \{\.\.\.\}\}/);
  }, 60_000);

  it("the same log given twice (a byte-identical copy): read once, not an input error, exit 0", async () => {
    const copy = path.join(tmp, "copy");
    fs.mkdirSync(copy);
    fs.copyFileSync(LOG, path.join(copy, "log.json"));
    const labels = path.join(tmp, "labels2");
    const r = await runCli(["label", LOG, path.join(copy, "log.json"), "--run", "twice", "--labels-dir", labels, "--format", "inspect"]);
    expect(r.code, r.stderr).toBe(0);
    const text = r.stdout.replace(/\n {4}/g, " "); // the summary's wrapped lines joined
    expect(text).toContain("errors: none");
    expect(text).toMatch(/read once: duplicate inputs 1 \(the same file, line or Inspect sample given again.*not input errors; listed in errors\.jsonl as kind duplicate_input\)/);
    expect(text).toMatch(/this invocation: 1 trajectories read, .*, 0 new input errors, 1 inputs given twice read once \(not errors\)/);
    const j = await runCli(["label", LOG, path.join(copy, "log.json"), "--run", "twice", "--labels-dir", labels, "--format", "inspect", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out.errors).toEqual({ total: 0, by_kind: {} });
    expect(out.read_once.duplicate_inputs).toBe(1);
  }, 60_000);
});
