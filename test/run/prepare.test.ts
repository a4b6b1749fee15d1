/**
 * A fault while preparing one trajectory names the item (red team 41: a stack overflow in the tool-description
 * detector stopped `label` with a bare "Maximum call stack size exceeded", no file, no line) and is the item's error,
 * for the run to record and pass over (red team 42: ./prepare-fault.test.ts).
 */
import { describe, expect, it } from "vitest";
import { PreparationError, TrajectoryPreparer } from "../../src/run/prepare.js";
import type { Trajectory } from "../../src/types.js";

describe("TrajectoryPreparer.prepare", () => {
  it("rethrows a fault as the item's prepare_failed error naming the trajectory, its file and line, with the fault as cause", async () => {
    const boom = new RangeError("Maximum call stack size exceeded");
    const t = {
      id: "bad-desc",
      source: { format: "chat-jsonl", path: "so2/x.jsonl", line: 2 },
      messages: [{ index: 0, role: "user", text: "hi" }],
      tools: [
        {
          name: "read_file",
          get description(): string {
            throw boom;
          },
        },
      ],
    } as unknown as Trajectory;
    const p = new TrajectoryPreparer([], {});
    const err = await p.prepare(t).catch((e: unknown) => e as PreparationError);
    expect(err).toBeInstanceOf(PreparationError);
    expect(err.message).toMatch(/^preparing trajectory "bad-desc" of so2\/x\.jsonl:2 failed: Maximum call stack size exceeded; it is not judged/);
    expect(err.error).toEqual({ path: "so2/x.jsonl", line: 2, trajectory_id: "bad-desc", kind: "prepare_failed", message: err.message });
    expect(err.cause).toBe(boom);
  });

  it("a trajectory that prepares is unchanged by the guard", async () => {
    const t = { id: "ok", source: { format: "chat-jsonl", path: "a.jsonl", line: 1 }, messages: [{ index: 0, role: "user", text: "hi" }] } as unknown as Trajectory;
    const r = await new TrajectoryPreparer([], {}).prepare(t);
    expect(r.trajectory.id).toBe("ok");
    expect(r.row.id).toBe("ok");
  });
});
