/**
 * Inputs as people write them (issue 23): benchmark verdicts given as strings ("false", "yes") are read where
 * unambiguous and said per file, never dropped in silence; a trajectory id given by two inputs is a loud input
 * error, and a later invocation never swaps the other input in as "content changed". Real vendored AgentDojo runs
 * through the real reader and `labelRun`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestWarning } from "../../src/ingest/index.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { CORPUS } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-bool-dup-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const RUN = "runs/claude-3-5-sonnet-20240620/banking/user_task_12/important_instructions/injection_task_0.json";

async function read(paths: string[]) {
  const items = [];
  const warnings: IngestWarning[] = [];
  for await (const it of readTrajectories(paths, { onWarning: (w) => warnings.push(w) })) items.push(it);
  return { items, warnings };
}

describe("verdict booleans written as strings", () => {
  it("AgentDojo: 'false' / 'yes' / 1 are read and said; an ambiguous value leaves the verdict unknown, said; no run is dropped", async () => {
    const src = JSON.parse(fs.readFileSync(path.join(CORPUS, RUN), "utf8"));
    const values: unknown[] = ["false", "yes", 1, "TRUE ", "maybe", "0"];
    const dir = path.join(tmp, "bools");
    values.forEach((v, k) => {
      const f = path.join(dir, `m${k}`, "banking", "user_task_12", "important_instructions", "injection_task_0.json");
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, JSON.stringify({ ...src, security: v }));
    });
    const { items, warnings } = await read([dir]);
    expect(items.map((i) => i.kind)).toEqual(Array(6).fill("trajectory"));
    const sec = items.map((i) => (i.kind === "trajectory" ? i.trajectory.reference?.security : "error"));
    expect(sec).toEqual([false, true, true, true, undefined, false]);
    const kinds = warnings.map((w) => w.kind);
    expect(kinds.filter((k) => k === "boolean_string")).toHaveLength(5);
    expect(kinds.filter((k) => k === "boolean_ambiguous")).toHaveLength(1);
    expect(warnings.find((w) => w.kind === "boolean_ambiguous")!.message).toContain('"maybe"');
  });

  it("chat JSONL: reference.security 'no' and a top-level 'attack_success': 'yes' are read and said", async () => {
    const f = path.join(tmp, "chat.jsonl");
    const msgs = [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }];
    fs.writeFileSync(
      f,
      [
        { id: "a", messages: msgs, injections: { i: "x" }, reference: { security: "no" } },
        { id: "b", messages: msgs, injections: { i: "x" }, attack_success: "yes" },
        { id: "c", messages: msgs, injections: { i: "x" }, reference: { security: "sometimes" } },
      ]
        .map((r) => JSON.stringify(r))
        .join("\n") + "\n",
    );
    const { items, warnings } = await read([f]);
    expect(items.map((i) => (i.kind === "trajectory" ? i.trajectory.reference?.security : i.error.kind))).toEqual([false, true, undefined]);
    // each distinct spelling ("no", "yes") is its own boolean_string warning (red team: never only the first)
    expect(warnings.map((w) => w.kind).sort()).toEqual(["boolean_ambiguous", "boolean_string", "boolean_string"]);
  });
});

describe("the same trajectory id from two inputs", () => {
  const put = (name: string, text: string) => {
    const f = path.join(tmp, name);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, text);
    return f;
  };
  const row = (id: string, text: string) => JSON.stringify({ id, messages: [{ role: "user", content: text }, { role: "assistant", content: "done" }] }) + "\n";

  it("in one read: the second is a duplicate_id error naming the first; the same file twice is duplicate_input", async () => {
    const a = put("dup/a.jsonl", row("T", "first"));
    const b = put("dup/b.jsonl", row("T", "second"));
    const { items } = await read([a, b, a]);
    const errs = items.filter((i) => i.kind === "error").map((i) => (i.kind === "error" ? [i.error.kind, i.error.message] : []));
    expect(errs[0][0]).toBe("duplicate_id");
    expect(errs[0][1]).toContain(path.resolve(a));
    expect(errs[1][0]).toBe("duplicate_input");
  });

  it("label: a loud input error (duplicateIds), and a later invocation with the other file is refused, never content_changed", async () => {
    const a = put("dup2/a.jsonl", row("U", "first"));
    const b = put("dup2/b.jsonl", row("U", "second"));
    const labels = path.join(tmp, "labels");
    const r1 = await labelRun({ inputs: [a, b], run: "d", labelsDir: labels, judges: [createSignatureJudge()] });
    expect(r1.duplicateIds).toBe(1);
    expect(r1.summary.warnings.join(" ")).toContain("INPUT ERROR");
    const r2 = await labelRun({ inputs: [b], run: "d", labelsDir: labels, judges: [createSignatureJudge()] });
    expect(r2.duplicateIds).toBe(1);
    const errors = fs.readFileSync(path.join(labels, "d", "errors.jsonl"), "utf8");
    expect(errors).not.toContain("content_changed");
    const verdicts = fs.readFileSync(path.join(labels, "d", "verdicts.jsonl"), "utf8").split("\n").filter(Boolean);
    expect(verdicts).toHaveLength(1);
    // the first file itself, changed, is still "changed" (judged again), not a duplicate
    fs.writeFileSync(a, row("U", "first, edited"));
    const r3 = await labelRun({ inputs: [a], run: "d", labelsDir: labels, judges: [createSignatureJudge()] });
    expect(r3.duplicateIds).toBe(0);
    expect(r3.progress.changed).toBe(1);
  });
});
