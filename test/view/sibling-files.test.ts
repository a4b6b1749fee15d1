/**
 * Opening one DRIFT trajectory in the view reads only the files of its sibling and clean runs (src/view/sibling-files.ts),
 * never every input of the run (recover42): a DRIFT log records no injected text, `label` recovered it from the clean
 * run and the stored content hash covers it, so the view recovers it again; before, that read every input file of the
 * run once per view session (11,384 files on the bench's corpus). Real DRIFT logs: test/data/drift-clean (NOTICE); a
 * second user task made from them holds the files that must not be read. Reads are counted at `fs.openSync`.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import { loadViewRun } from "../../src/view/run-data.js";
import { itemView } from "../../src/view/item.js";
import { siblingFiles } from "../../src/view/sibling-files.js";
import { DATA } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "view-sibling-files-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The paths `fs.openSync` opened while `f` ran (the ingest reader opens every file it reads with it). */
async function opened<T>(f: () => Promise<T>): Promise<{ value: T; files: string[] }> {
  const files: string[] = [];
  const real = fs.openSync;
  fs.openSync = ((p: fs.PathLike, ...rest: unknown[]) => {
    files.push(path.resolve(String(p)));
    return (real as (...a: unknown[]) => number)(p, ...rest);
  }) as typeof fs.openSync;
  syncBuiltinESMExports();
  try {
    return { value: await f(), files };
  } finally {
    fs.openSync = real;
    syncBuiltinESMExports();
  }
}

describe("the view opening a DRIFT trajectory", () => {
  it("recovers its injected text from its own sibling and clean runs' files only, and shows it as labelled", async () => {
    const runs = path.join(tmp, "runs");
    fs.cpSync(path.join(DATA, "drift-clean", "runs"), runs, { recursive: true });
    const model = fs.readdirSync(runs)[0];
    const own = path.join(runs, model, "shopping", "user_task_0");
    const other = path.join(runs, model, "shopping", "user_task_7");
    for (const f of fs.readdirSync(own, { recursive: true, encoding: "utf8" }).filter((x) => x.endsWith(".json"))) {
      const j = JSON.parse(fs.readFileSync(path.join(own, f), "utf8"));
      j.user_task_id = "user_task_7";
      fs.mkdirSync(path.dirname(path.join(other, f)), { recursive: true });
      fs.writeFileSync(path.join(other, f), JSON.stringify(j));
    }
    await labelRun({ inputs: [runs], run: "drift", labelsDir: tmp, judges: [createSignatureJudge()] });
    const run = await loadViewRun(path.join(tmp, "drift"));
    // a run labelled with text recovered from its clean run (its surfaces say so)
    const recovered = (id: string) => Object.keys(run.index.get(id)?.surfaces ?? {}).some((k) => k.startsWith("clean_diff:"));
    const rows = [...run.rows].filter((r) => r.attacked && r.user_task_id === "user_task_0" && recovered(r.id));
    expect(rows.length).toBeGreaterThan(0);
    const row = rows[0];
    const files = siblingFiles(run, run.index.get(row.id)!, tmp)!;
    expect(files.length).toBe(3);
    expect(files.every((f) => f.startsWith(own + path.sep))).toBe(true);
    const { value: item, files: read } = await opened(() => itemView(run, row.id, tmp));
    expect(item?.error).toBeUndefined();
    expect(item?.doc).not.toBeNull();
    // its injected text recovered as label recovered it (the stored content hash matched)
    const sourced = read.filter((f) => f.startsWith(runs + path.sep));
    expect(sourced.length).toBeGreaterThan(1);
    expect(sourced.filter((f) => !f.startsWith(own + path.sep))).toEqual([]);
  });
});
