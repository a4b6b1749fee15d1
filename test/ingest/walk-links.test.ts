import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inputFiles, readTrajectories } from "../../src/ingest/index.js";
import { CORPUS } from "../helpers/paths.js";

const REAL = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3.json");
const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-walk-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function files(p: string): Promise<string[]> {
  const out: string[] = [];
  for await (const f of inputFiles([p])) out.push("file" in f ? path.relative(p, f.file) : `error ${f.error.kind}`);
  return out;
}

describe("directory walk: real paths without a realpath per directory, links still safe", () => {
  it("a link back to an ancestor deep in the tree is walked once (no loop)", async () => {
    const root = path.join(tmp, "loop");
    mkdirSync(path.join(root, "a", "b"), { recursive: true });
    copyFileSync(REAL, path.join(root, "a", "b", "run.json"));
    symlinkSync(root, path.join(root, "a", "b", "up"), "dir");
    symlinkSync(path.join(root, "a"), path.join(root, "a", "b", "upa"), "dir");
    expect(await files(root)).toEqual([path.join("a", "b", "run.json")]);
  });

  it("a plain folder and a link to it in the same walk: read once, whichever comes first", async () => {
    const root = path.join(tmp, "twice");
    mkdirSync(path.join(root, "m"), { recursive: true });
    copyFileSync(REAL, path.join(root, "m", "run.json"));
    symlinkSync(path.join(root, "m"), path.join(root, "l"), "dir"); // "l" sorts before "m"
    symlinkSync(path.join(root, "m"), path.join(root, "z"), "dir");
    expect(await files(root)).toEqual([path.join("l", "run.json")]);
  });

  it("a linked input folder gives its own ids (separate inputs are walked separately)", async () => {
    const root = path.join(tmp, "ids");
    const model = path.join(root, "runs", "gpt-4o-2024-05-13", "workspace", "user_task_13", "important_instructions");
    mkdirSync(model, { recursive: true });
    copyFileSync(REAL, path.join(model, "injection_task_3.json"));
    const link = path.join(root, "gpt-4o-2024-05-13~r1");
    symlinkSync(path.join(root, "runs", "gpt-4o-2024-05-13"), link, "dir");
    const ids: string[] = [];
    for await (const it of readTrajectories([path.join(root, "runs", "gpt-4o-2024-05-13"), link])) {
      expect(it.kind).toBe("trajectory");
      if (it.kind === "trajectory") ids.push(it.trajectory.id);
    }
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });
});
