/**
 * The annotation export against red team 30 H2: one trajectory whose task cannot be rendered (a hostile one) no
 * longer aborts `sample`: the item is named, left out of the annotators' task files, and kept in the manifest (so
 * import counts it unlabelled). Without the callback the error names the item.
 */
import { describe, expect, it } from "vitest";
import { buildExportFiles, EXPORT_FILES, type BlindItem } from "../../src/sample/export.js";
import type { SampleDesign } from "../../src/sample/sample.js";
import type { Trajectory } from "../../src/types.js";

const item = (n: number): BlindItem =>
  ({ item_id: `s-${n}`, trajectory_id: `t${n}`, stratum: "A", sampling_stratum: "A", committee_stratum: "A", stratum_size: 3, phase: 1, inclusion_probability: 1, weight: 1 }) as BlindItem;
const traj = (id: string, text: string): Trajectory =>
  ({ id, source: { format: "x", path: "x" }, injections: {}, messages: [{ index: 0, role: "user", text }] }) as unknown as Trajectory;

function input() {
  const bad = traj("t2", "x");
  Object.defineProperty(bad.messages[0], "text", {
    get() {
      throw new RangeError("Maximum call stack size exceeded");
    },
  });
  return {
    run: "r",
    scale: "six" as const,
    design: { seed: 1 } as unknown as SampleDesign,
    items: [item(1), item(2), item(3)],
    trajectories: new Map([
      ["t1", traj("t1", "first")],
      ["t2", bad],
      ["t3", traj("t3", "third")],
    ]),
  };
}

describe("an item whose task cannot be rendered", () => {
  it("is named to the callback, left out of the task files and kept in the manifest", () => {
    const said: string[] = [];
    const files = buildExportFiles({ ...input(), onItemError: (it, e) => said.push(`${it.item_id} ${it.trajectory_id}: ${e.message}`) });
    expect(said).toEqual(["s-2 t2: Maximum call stack size exceeded"]);
    const tasks = files[EXPORT_FILES.tasksJsonl].trim().split("\n").map((l) => JSON.parse(l).item_id);
    expect(tasks).toEqual(["s-1", "s-3"]);
    expect(files[EXPORT_FILES.manifest]).toContain('"item_id":"s-2"');
  });
  it("without the callback, throws an error naming the item", () => {
    expect(() => buildExportFiles(input())).toThrow(/item s-2 \(trajectory t2\) could not be rendered for annotators: Maximum call stack/);
  });
});
