/**
 * The old ids of moved trajectories in `inputs-removed.json` (`src/store/removed-ids.ts`, runs53): recorded with their
 * new ids and a few files, read back, and said by every reader as moved (from where to where), never as "whose input is
 * gone"; a record mixing moved and gone says both; an older build's record (no `moved`) reads as before.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { leftOutText, movedPart, removedAllMoved, removedRecord, removedStatement, writeRemovedIds, REMOVED_FILE } from "../../src/store/removed-ids.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "removed-moved-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const dirOf = (name: string) => {
  const d = path.join(tmp, name);
  fs.mkdirSync(d, { recursive: true });
  return d;
};

describe("moved ids in inputs-removed.json", () => {
  it("all moved: written and read back, said as moved with both ids and files, no 'gone'", () => {
    const d = dirOf("all");
    const moved = Object.assign(Object.create(null) as Record<string, string>, { "m/a": "n/a", "m/b": "n/b" });
    writeRemovedIds(d, { ids: ["m/a", "m/b"], files: ["/c/ad/m/a.json"], moved, moved_files: [["/c/ad/m/a.json", "/c/mv/n/a.json"]] });
    const r = removedRecord(d)!;
    expect(r.record.moved).toEqual({ "m/a": "n/a", "m/b": "n/b" });
    expect(r.record.moved_files).toEqual([["/c/ad/m/a.json", "/c/mv/n/a.json"]]);
    expect(removedAllMoved(d)).toBe(true);
    const s = removedStatement(d)!;
    expect(s).toContain('the 2 old ids of trajectories whose input moved (the same content read under a new id, e.g. "m/a" -> "n/a"; files /c/ad/m/a.json -> /c/mv/n/a.json)');
    expect(s).toContain("no trajectory was lost");
    expect(s).not.toContain("gone");
  });

  it("some moved, some gone: both said, the examples of the gone ones those gone", () => {
    const d = dirOf("mixed");
    writeRemovedIds(d, { ids: ["m/a", "g/x", "g/y"], files: [], moved: { "m/a": "" }, moved_files: [] });
    expect(removedAllMoved(d)).toBe(false);
    const s = removedStatement(d)!;
    expect(s).toMatch(/^input_removed: 2 trajectories whose input is gone .* \(e\.g\. "g\/x", "g\/y"\); .*; besides, the 1 old id of trajectory whose input moved \(the same content read under a new id, e\.g\. "m\/a" -> a new id\) is left out: their content is counted under the new ids$/);
  });

  it("an older build's record (no moved field) and a malformed moved field read as none moved", () => {
    const d = dirOf("old");
    fs.writeFileSync(path.join(d, REMOVED_FILE), JSON.stringify({ version: 1, ids: ["a"], files: [] }));
    expect(removedRecord(d)!.record.moved).toBeUndefined();
    expect(removedStatement(d)).toMatch(/^input_removed: 1 trajectory whose input is gone/);
    const e = dirOf("bad");
    fs.writeFileSync(path.join(e, REMOVED_FILE), JSON.stringify({ version: 1, ids: ["a"], files: [], moved: ["a"] }));
    expect(removedAllMoved(e)).toBe(false);
  });

  it("ids named like Object's own properties are not taken as moved", () => {
    const d = dirOf("proto");
    writeRemovedIds(d, { ids: ["toString", "__proto__"], files: [], moved: JSON.parse('{"__proto__":"n"}') as Record<string, string>, moved_files: [] });
    const r = removedRecord(d)!;
    expect(movedPart(r.record, r.ids)?.count).toBe(1);
    expect(removedStatement(d)).toContain('e.g. "toString"');
  });

  it("leftOutText without moves is the text every reader said before", () => {
    expect(leftOutText({ count: 1, examples: ["a"] })).toBe(
      'input_removed: 1 trajectory whose input is gone (file deleted, its row no longer in it, or the file no longer read as a trajectory) is left out of the figures (e.g. "a"); every figure is over the input files that exist now; the verdicts stay in verdicts.jsonl and count again once label reads the restored input',
    );
  });
});
