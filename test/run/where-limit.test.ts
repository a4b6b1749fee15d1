/**
 * Red team: `--where` with `--limit 2` said "3 kept" but stored 2 verdicts: the where tally counted a trajectory
 * before the limit check. The statement must say what was judged, in `label` and `label --dry-run` alike.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { dryRun } from "../../src/run/dry-run.js";
import { readVerdicts } from "../../src/store/run-store.js";
import { parseWhere } from "../../src/store/where.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-wherelimit-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const row = (id: string, condition: string) =>
  JSON.stringify({ id, condition, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] }) + "\n";

describe("--where with --limit", () => {
  it("counts as kept only what was judged (label and dry run)", async () => {
    const f = path.join(tmp, "runs.jsonl");
    fs.writeFileSync(f, ["a", "b", "c", "d"].map((id) => row(id, "x")).join("") + row("e", "y"));
    const where = parseWhere(["condition=x"]);
    const sig = createSignatureJudge();
    const dry = await dryRun({ inputs: [f], run: "w", labelsDir: path.join(tmp, "labels"), judges: [sig], where, limit: 2 });
    expect(dry.trajectories).toBe(2);
    expect(dry.where).toMatchObject({ kept: 2, of: 2 });
    const r = await labelRun({ inputs: [f], run: "w", labelsDir: path.join(tmp, "labels"), judges: [sig], where, limit: 2 });
    expect(r.where!.input).toMatchObject({ kept: 2, of: 2 });
    expect(r.progress.read).toBe(2);
    expect(await readVerdicts(path.join(tmp, "labels", "w"))).toHaveLength(2);
  });
});
