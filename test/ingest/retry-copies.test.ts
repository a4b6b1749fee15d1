/**
 * Inspect's eval-retry copies (red team 37 F3): the same sample (task, id, epoch) with the same content in two logs
 * of one read is read once (`duplicate_input` naming the first); the same id and epoch with other content counts.
 * newuser54 #1: two logs of two conditions (or of another task id: another `inspect eval`) whose samples hold the same
 * messages are two runs, whichever is read first; eval-retry keeps the task id and the cell, so its copy stays one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";
import { DATA } from "../helpers/paths.js";

const LOG = path.join(DATA, "inspect", "tool-poisoning-log.json");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "retry-copies-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function readAll(paths: string[]): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readTrajectories(paths)) out.push(it);
  return out;
}

/** Two logs in `dir`: the fixture, and a copy that is not byte-identical (a newline added, `edit` applied to its text). */
function twoLogs(dir: string, edit: (text: string) => string = (x) => x): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(LOG, path.join(dir, "2026-01-01_task_AAAA.json"));
  fs.writeFileSync(path.join(dir, "2026-01-02_task_BBBB.json"), edit(fs.readFileSync(LOG, "utf8")) + "\n");
}

describe("Inspect eval-retry copies", () => {
  it("the same sample and epoch with the same content in a second log is read once, naming the first", async () => {
    const dir = path.join(tmp, "same");
    twoLogs(dir);
    const items = await readAll([dir]);
    const ts = items.filter((i) => i.kind === "trajectory");
    expect(ts.map((i) => i.kind === "trajectory" && i.trajectory.id)).toEqual(["2026-01-01_task_AAAA/poisoned-1_epoch_1"]);
    const errs = items.flatMap((i) => (i.kind === "error" ? [i.error] : []));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({ kind: "duplicate_input", trajectory_id: "2026-01-02_task_BBBB/poisoned-1_epoch_1" });
    expect(errs[0].message).toContain("the same Inspect sample (sample \"poisoned-1\", epoch 1, the same content) as");
    expect(errs[0].message).toContain("2026-01-01_task_AAAA.json");
    expect(errs[0].message).toContain("eval-retry");
  });

  it("the same sample and epoch with other content is a sample run again: both count", async () => {
    const dir = path.join(tmp, "other");
    twoLogs(dir, (text) => text.replace("Contacts shared with", "Contacts shared again with"));
    const items = await readAll([dir]);
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(2);
    expect(items.some((i) => i.kind === "error" && i.error.kind === "duplicate_input")).toBe(false);
  });

  it("the same messages under another condition or model, or in a log of another task id, are distinct runs, in either order", async () => {
    const edits: Array<[string, (text: string) => string]> = [
      ["condition", (text) => text.replace(/"defense": "none"/g, '"defense": "pi_detector"')],
      ["model", (text) => text.replace('"model": "openai/gpt-4o-mini"', '"model": "openai/gpt-4o"')],
      ["task_id", (text) => text.replace('"task_id": "T1"', '"task_id": "T2"')],
    ];
    for (const [what, edit] of edits) {
      const dir = path.join(tmp, `cell-${what}`);
      twoLogs(dir, edit);
      const logs = fs.readdirSync(dir).map((f) => path.join(dir, f));
      for (const order of [logs, [...logs].reverse()]) {
        const items = await readAll(order);
        const ts = items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
        expect(ts, what).toHaveLength(2);
        expect(items.some((i) => i.kind === "error"), what).toBe(false);
        if (what === "condition") expect(ts.map((t) => t.condition).sort()).toEqual(["no_defense", "pi_detector"]);
      }
    }
  });
});
