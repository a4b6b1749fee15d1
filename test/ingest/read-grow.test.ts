/**
 * A run file that grows between the reader's `fstat` and its read (src/ingest/read-file.ts `readSized`, red team 17): it
 * is read to its end, as `readFileSync(fd)` did, so one grown past the size limit is `too_large`, never `invalid_json`
 * from a read cut at the old size; a valid longer file is `changed_during_read` (red team 31 F4: the file changed while
 * it was read, no trajectory is taken from it; ./changed.test.ts). `fs.fstatSync` is patched (and put
 * back) to rewrite the file right after the reader's `fstat`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { syncBuiltinESMExports } from "node:module";
import { afterAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";
import { REUSED_BYTES } from "../../src/ingest/read-file.js";
import { CORPUS } from "../helpers/paths.js";

const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_9/important_instructions/injection_task_1.json");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-grow-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Read `file` with its content replaced by `grown` right after the first fstat of it. */
async function readGrowing(file: string, grown: string, maxItemBytes: number): Promise<IngestItem[]> {
  const orig = fs.fstatSync;
  let done = false;
  fs.fstatSync = function (this: unknown, ...a: Parameters<typeof fs.fstatSync>) {
    const st = orig.apply(this, a);
    if (!done) {
      done = true;
      fs.writeFileSync(file, grown);
    }
    return st;
  } as typeof fs.fstatSync;
  syncBuiltinESMExports();
  try {
    const items: IngestItem[] = [];
    for await (const it of readTrajectories([file], { maxItemBytes })) items.push(it);
    return items;
  } finally {
    fs.fstatSync = orig;
    syncBuiltinESMExports();
  }
}

describe("a file that grows between fstat and read", () => {
  const text = fs.readFileSync(SRC, "utf8");

  it("a valid longer file is read whole, then changed_during_read (not invalid_json)", async () => {
    const file = path.join(tmp, "a", "injection_task_1.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    const items = await readGrowing(file, text.replace(/}\s*$/, `, "extra_note": "${"y".repeat(1000)}"}`), text.length + 5000);
    expect(items.map((i) => (i.kind === "error" ? i.error.kind : i.kind))).toEqual(["changed_during_read"]);
  });

  it("a valid longer file over the reused buffer's size is read whole too, then changed_during_read", async () => {
    const file = path.join(tmp, "c", "injection_task_1.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const big = text.replace(/}\s*$/, `, "pad": "${"p".repeat(REUSED_BYTES)}"}`);
    fs.writeFileSync(file, big);
    const items = await readGrowing(file, big.replace(/}\s*$/, `, "extra_note": "${"y".repeat(1000)}"}`), big.length + 5000);
    expect(items.map((i) => (i.kind === "error" ? i.error.kind : i.kind))).toEqual(["changed_during_read"]);
  });

  it("one grown past the size limit is too_large", async () => {
    const file = path.join(tmp, "b", "injection_task_1.json");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    const items = await readGrowing(file, text + " ".repeat(3000), text.length + 2000);
    expect(items.map((i) => (i.kind === "error" ? i.error.kind : i.kind))).toEqual(["too_large"]);
  });
});
