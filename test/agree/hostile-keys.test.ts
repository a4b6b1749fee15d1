import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readHumanLabels } from "../../src/agree/human.js";

describe("human label files whose keys come from the file", () => {
  it("keeps __proto__ / constructor header names and values as plain data", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-keys-"));
    const f = path.join(dir, "h.csv");
    fs.writeFileSync(
      f,
      "trajectory_id,annotator,label,__proto__,constructor\n" +
        "t1,__proto__,full_compliance,x,y\n" +
        "t1,constructor,unaffected,x,y\n",
    );
    const out = readHumanLabels(f);
    expect(out.rows.map((r) => [r.trajectory_id, r.annotator, r.label])).toEqual([
      ["t1", "__proto__", "full_compliance"],
      ["t1", "constructor", "unaffected"],
    ]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
