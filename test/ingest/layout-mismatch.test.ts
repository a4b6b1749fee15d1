/**
 * An AgentDojo file in a layout folder whose own fields name another suite or task is said, naming the file and the
 * fields (red team 37 F5: stored as the fields say, silently); a flat folder of runs elsewhere is not warned about.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { layoutMismatch } from "../../src/ingest/layout-mismatch.js";
import { readTrajectories } from "../../src/ingest/index.js";
import type { IngestWarning } from "../../src/ingest/warnings.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "layout-mismatch-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const RUN = { suite_name: "slack", user_task_id: "user_task_0", attack_type: "important_instructions", injection_task_id: "injection_task_1" };

describe("layoutMismatch", () => {
  it("a file under banking/user_task_15 whose fields say slack / user_task_0: said, naming both fields", () => {
    const w = layoutMismatch("/r/gpt-4o/banking/user_task_15/important_instructions/injection_task_1.json", RUN);
    expect(w?.kind).toBe("layout_mismatch");
    expect(w?.item).toBe("/r/gpt-4o/banking/user_task_15/important_instructions/injection_task_1.json");
    expect(w?.message).toContain('suite_name "slack", folder "banking"; user_task_id "user_task_0", folder "user_task_15"');
  });

  it("agreeing fields, or a path that is no layout folder (fewer than two parts agree): nothing", () => {
    expect(layoutMismatch("/r/gpt-4o/slack/user_task_0/important_instructions/injection_task_1.json", RUN)).toBeUndefined();
    expect(layoutMismatch("/data/exp/flat/runs/r1.json", RUN)).toBeUndefined();
  });

  it("read: the run is kept (by its fields) and the warning reaches the reader's warnings", async () => {
    const src = fs.readdirSync(path.join(CORPUS, "runs"), { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(".json") && f.includes(`${path.sep}important_instructions${path.sep}`))!;
    const run = JSON.parse(fs.readFileSync(path.join(CORPUS, "runs", src), "utf8"));
    const parts = src.split(path.sep); // <model>/<suite>/<user_task>/<attack>/<file>
    const other = parts[1] === "banking" ? "slack" : "banking";
    const file = path.join(tmp, "runs", parts[0], other, parts[2], parts[3], parts[4]);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(run));
    const warnings: IngestWarning[] = [];
    const items = [];
    for await (const it of readTrajectories([path.join(tmp, "runs")], { onWarning: (w) => warnings.push(w) })) items.push(it);
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(1);
    const w = warnings.find((x) => x.kind === "layout_mismatch");
    expect(w?.message).toContain(`suite_name ${JSON.stringify(run.suite_name)}, folder "${other}"`);
  });
});
