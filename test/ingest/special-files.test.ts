/**
 * A FIFO (or socket, or device) where a trajectory file is expected is a read_error and is never opened: opening a
 * FIFO with no writer blocked the main thread for good, where no signal handler could run (found by a red-team
 * pass: `label` on a FIFO hung and ignored SIGTERM).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countInputs, readTrajectories } from "../../src/ingest/index.js";
import { CORPUS } from "../helpers/paths.js";

let tmp: string;
let fifo: string;
let good: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-fifo-"));
  const rel = path.join("gpt-4o-2024-05-13", "workspace", "user_task_5", "tool_knowledge");
  const dir = path.join(tmp, rel);
  fs.mkdirSync(dir, { recursive: true });
  const src = path.join(CORPUS, "runs", rel, "injection_task_0.json");
  good = path.join(dir, "injection_task_0.json");
  fs.copyFileSync(src, good);
  fifo = path.join(dir, "zz.json");
  execFileSync("mkfifo", [fifo]);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function items(paths: string[]) {
  const out = [];
  for await (const it of readTrajectories(paths)) out.push(it);
  return out;
}

describe("special files", () => {
  it("a FIFO given explicitly: one read_error naming it, at once", async () => {
    const got = await items([fifo]);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ kind: "error", error: { kind: "read_error", path: fifo } });
    expect((got[0] as { error: { message: string } }).error.message).toMatch(/not a regular file/);
    expect(await countInputs([fifo])).toBe(1);
  });

  it("a FIFO with a trajectory file's name in a walked folder: named in an error, the real file beside it read", async () => {
    const got = await items([tmp]);
    expect(got.map((g) => g.kind).sort()).toEqual(["error", "trajectory"]);
    const err = got.find((g) => g.kind === "error") as { error: { kind: string; path: string } };
    expect(err.error.kind).toBe("read_error");
    expect(err.error.path).toContain("zz.json");
  });
});
