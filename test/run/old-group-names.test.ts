/**
 * A run stored before ingest normalized group names keeps them on resume (its rows are not rewritten; unchanged files
 * are not read again): the resume says how many of its trajectories carry such names, once, with examples.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { oldGroupNamesWarning } from "../../src/run/old-group-names.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "old-group-names-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace");

describe("group names stored before the normalization", () => {
  it("a resume warns once with the count and examples, and rewrites nothing", async () => {
    const labelsDir = path.join(tmp, "labels");
    const warnings: string[] = [];
    const run = () => labelRun({ inputs: [SRC], run: "r", labelsDir, judges: [createSignatureJudge()], onWarning: (w) => warnings.push(w) });
    const first = await run();
    expect(warnings.filter((w) => w.startsWith("name_normalized"))).toEqual([]);
    // as an older version stored them: a zero-width space in the model name of three rows
    const file = path.join(labelsDir, "r", "trajectories.jsonl");
    const rows = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    for (const r of rows.slice(0, 3)) r.agent_model = "gpt-4o\u200b-2024-05-13";
    const text = rows.map((r) => JSON.stringify(r)).join("\n") + "\n";
    fs.writeFileSync(file, text);
    const again = await run();
    const said = warnings.filter((w) => w.startsWith("name_normalized"));
    expect(said).toEqual([
      'name_normalized: 3 trajectories of run "r" were stored before group names lost their invisible and control characters at ingest, and keep the names as stored: ' +
        'agent_model "gpt-4o⟨U+200B⟩-2024-05-13" (now read as "gpt-4o-2024-05-13"); in this run\'s figures they group apart from the same names written without them ' +
        "(a new run reads them normalized); the stored rows are not rewritten",
    ]);
    expect(again.progress.judged).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(text); // not rewritten
    expect(first.summary.trajectories).toBe(again.summary.trajectories);
  });

  it("rows with clean names say nothing", () => {
    expect(oldGroupNamesWarning([{ id: "a", agent_model: "m", suite: "s", condition: "c", attack: "x" } as never], "r")).toBeUndefined();
  });
});
