import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unchangedHit, type UnchangedFile } from "../../src/ingest/unchanged.js";
import { PathTable } from "../../src/ingest/walk.js";
import { WarningCollector } from "../../src/ingest/warnings.js";
import { IdSlots } from "../../src/store/compact.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-unchanged-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tables(ids: IdSlots) {
  const firstFile = new PathTable<string>(ids);
  const seen = new PathTable<string>(ids, { same: firstFile });
  return { seen, firstFile, warnings: new WarningCollector() };
}

describe("unchangedHit: a file taken as unchanged enters the read's tables as a read would", () => {
  const file = path.join(tmp, "run.json");
  writeFileSync(file, "{}");
  const other = path.join(tmp, "copy.json");
  writeFileSync(other, "{}");

  it("by the check's slot when the read shares its id slots, by the id otherwise: the same tables; an id met already is read", () => {
    for (const share of [true, false]) {
      const ids = new IdSlots();
      const slot = ids.slot("m/t/1");
      const read = tables(share ? ids : new IdSlots());
      const check: UnchangedFile = () => ({ id: "m/t/1", layout: true, slot, slots: ids, repeats: { awaited: 1, judges: 2 } });
      expect(unchangedHit(file, 1e6, check, read)).toEqual({ kind: "unchanged", id: "m/t/1", path: file, repeats: { awaited: 1, judges: 2 } });
      expect(read.seen.get("m/t/1")).toBe(file);
      expect(read.firstFile.get("m/t/1")).toBe(file);
      expect(unchangedHit(other, 1e6, check, read)).toBeUndefined(); // its id is taken: the read says duplicate or renames
    }
  });

  it("a stat read ahead stands for the file's own; a stat saying no plain file, or over the size limit, means read it", () => {
    const read = tables(new IdSlots());
    const stamps: unknown[] = [];
    const check: UnchangedFile = (_f, stamp) => (stamps.push(stamp), { id: "x", layout: false });
    expect(unchangedHit(file, 1e6, check, { ...read, stat: { isFile: true, size: 7, mtimeMs: 1, ctimeMs: 2 } })).toEqual({ kind: "unchanged", id: "x", path: file });
    expect(stamps).toEqual([{ size: 7, mtime_ms: 1, ctime_ms: 2 }]);
    expect(unchangedHit(other, 1e6, check, { ...tables(new IdSlots()), stat: { isFile: false, size: 7, mtimeMs: 1, ctimeMs: 2 } })).toBeUndefined();
    expect(unchangedHit(other, 5, check, { ...tables(new IdSlots()), stat: { isFile: true, size: 7, mtimeMs: 1, ctimeMs: 2 } })).toBeUndefined();
  });
});
