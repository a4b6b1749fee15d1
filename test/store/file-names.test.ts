import { describe, expect, it } from "vitest";
import { FileNames, splitPath } from "../../src/store/file-names.js";
import { PathTable } from "../../src/ingest/walk.js";
import { IdSlots } from "../../src/store/compact.js";

describe("splitPath and FileNames (paths `<root>/<id>.json` held as a root and a mark, issue 26)", () => {
  const cases: Array<[id: string, p: string, marked: boolean]> = [
    ["m/banking/user_task_0/none/none", "/runs/m/banking/user_task_0/none/none.json", true],
    ["m~r5/banking/user_task_0/important_instructions/injection_task_1", "/links/r5/m~r5/banking/user_task_0/important_instructions/injection_task_1.json", true],
    ["debug_run/travel/type_ii_a/m/t/u/a/i", "/vigil/debug_run/travel/type_ii_a/m/t/u/a/i.json", true], // a renamed (longer) id
    ["x", "x.json", true], // the whole path: root ""
    ["é/ü", "/r/é/ü.json", true],
    ["m/a/none", "/runs/m/a/none.JSON", false], // another case of the extension
    ["m/a/none", "/runs/m/a/none.jsonl", false],
    ["m/a/none", "/runs/m/a/nonX.json", false],
    ["m/a/none", "/runs/m/b/none.json", false], // same name, another folder than the id says
    ["chat-1", "/data/chat.jsonl:12", false],
    ["a/b/c", "b/c.json", false], // shorter than the id
    ["", "/r/.json", true], // an empty id
    ["m/a/none", "", false],
  ];
  it("splits only a path that is exactly prefix + id + .json, and the two parts give the path back", () => {
    for (const [id, p, marked] of cases) {
      const [prefix, rest] = splitPath(id, p, "/");
      expect(rest === null, `${id} ${p}`).toBe(marked);
      expect(prefix + (rest ?? `${id}.json`)).toBe(p);
    }
  });
  it("FileNames gives back each rest set, marked or not, and an overwrite replaces it either way", () => {
    const ids = new IdSlots();
    const names = new FileNames();
    const idOf = (s: number) => ids.id(s);
    for (const [id, p] of cases) {
      const slot = ids.slot(`${id}#${p}`); // distinct slots; the id passed to splitPath is the slot's own
      const [prefix, rest] = splitPath(ids.id(slot), p, "/");
      names.set(slot, rest);
      expect(prefix + names.get(slot, idOf)).toBe(p);
    }
    const s = ids.slot("m/a/none");
    names.set(s, null);
    expect(names.get(s, idOf)).toBe("m/a/none.json");
    names.set(s, "other.json");
    expect(names.get(s, idOf)).toBe("other.json");
    names.set(s, null);
    expect(names.get(s, idOf)).toBe("m/a/none.json");
    expect(names.get(ids.slot("never set"), idOf)).toBe("");
  });
  it("PathTable gives back layout paths (root + id + .json) exactly, beside other paths, with a `same` table", () => {
    const ids = new IdSlots();
    const first = new PathTable<string>(ids);
    const seen = new PathTable<string>(ids, { same: first });
    const one = new Map<string, string>(); // the first path of each id (a table's path of a key is set once here)
    for (const [id, p] of cases) if (id !== "" && p !== "" && !one.has(id)) one.set(id, p);
    for (const [id, p] of one) {
      first.set(id, p);
      seen.set(id, p);
    }
    for (const [id, p] of one) {
      expect(first.get(id)).toBe(p);
      expect(seen.get(id)).toBe(p);
    }
  });
});
