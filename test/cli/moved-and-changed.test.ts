/**
 * break2_53 #8: a run's input folder moved and one of its files edited on the way. The edited trajectory is a change
 * (judged again, said as `content_changed`), not a "duplicate id" whose stale verdict stays and whose advice is to rename
 * a trajectory that is fine; while the old file still exists, the same id with other content from another file stays a
 * duplicate (issue 23: two files claiming one id). Real vendored runs: test/data/agentdojo (run `npm run build` first).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cli-moved-changed-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SRC = path.resolve("test/data/agentdojo/runs/gpt-4o-2024-05-13/workspace/user_task_5");
const rel = path.join("gpt-4o-2024-05-13", "workspace", "user_task_5");

function copyRuns(to: string): string {
  fs.mkdirSync(path.join(to, rel), { recursive: true });
  fs.cpSync(SRC, path.join(to, rel), { recursive: true });
  return to;
}
/** Edit one run's last message so its content hash changes (its id, from the path, stays). */
function edit(root: string): string {
  const dir = path.join(root, rel, "important_instructions");
  const file = path.join(dir, fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()[0]);
  const run = JSON.parse(fs.readFileSync(file, "utf8"));
  const last = run.messages[run.messages.length - 1];
  last.content = `${typeof last.content === "string" ? last.content : JSON.stringify(last.content)} (edited)`;
  fs.writeFileSync(file, JSON.stringify(run));
  return file;
}
const lines = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

describe("a moved input folder with one file edited", () => {
  it("the edited trajectory is judged again as changed, no duplicate_id, exit 0", async () => {
    const L = ["--run", "r", "--labels-dir", path.join(tmp, "labels")];
    const a = copyRuns(path.join(tmp, "a"));
    const first = await runCli(["label", a, ...L]);
    expect([0, 3], first.stderr).toContain(first.code);
    const b = path.join(tmp, "b");
    fs.renameSync(a, b);
    edit(b);
    const second = await runCli(["label", b, ...L]);
    expect([0, 3], second.stderr).toContain(second.code);
    const errs = lines(path.join(tmp, "labels", "r", "errors.jsonl"));
    expect(errs.filter((e) => e.kind === "duplicate_id")).toEqual([]);
    expect(errs.filter((e) => e.kind === "content_changed")).toHaveLength(1);
    expect(second.stderr).not.toMatch(/given twice with different inputs/);
  }, 120_000);

  it("while the old file still exists, another file's other content under its id stays a duplicate (issue 23)", async () => {
    const L = ["--run", "d", "--labels-dir", path.join(tmp, "labels")];
    const a = copyRuns(path.join(tmp, "c"));
    const first = await runCli(["label", a, ...L]);
    expect([0, 3], first.stderr).toContain(first.code);
    const b = copyRuns(path.join(tmp, "e"));
    edit(b);
    const second = await runCli(["label", b, ...L]);
    expect(second.code).toBe(1);
    expect(lines(path.join(tmp, "labels", "d", "errors.jsonl")).filter((e) => e.kind === "duplicate_id")).toHaveLength(1);
  }, 120_000);
});
