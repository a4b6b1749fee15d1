/**
 * `./wire.ts`: a trajectory `label` hashed travels to a signature worker as its content hash's JSON text; the worker
 * rebuilds the same trajectory (fields in their order), so workers judge what the calling thread would.
 */
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { readTrajectories } from "../../../src/ingest/index.js";
import { contentSha256, keptContentText } from "../../../src/io/hash.js";
import { createSignatureJudge } from "../../../src/judges/signature/index.js";
import { fromWire, toWire } from "../../../src/judges/signature/wire.js";
import { indexRow } from "../../../src/run/resume.js";
import type { Trajectory } from "../../../src/types.js";
import { SAMPLES } from "../../helpers/paths.js";

/** What a worker receives: the message through the structured clone, as `postMessage` copies it. */
const carried = (t: Trajectory) => fromWire(v8.deserialize(v8.serialize(toWire(t))));

describe("signature wire form", () => {
  it("sends a trajectory whole when no content text is kept for it (a library caller's own object)", () => {
    const t = { id: "x", source: { format: "t", path: "t" }, injections: {}, messages: [{ index: 0, role: "user", text: "hi" }] } as Trajectory;
    contentSha256(t); // not kept
    expect(toWire(t)).toEqual({ t });
  });

  it("rebuilds every sample trajectory as its JSON form, keys in order, and the judge gives the same verdict", async () => {
    const judge = createSignatureJudge({ workers: 0, now: () => new Date("2026-01-01T00:00:00.000Z") });
    let n = 0;
    for await (const it of readTrajectories([SAMPLES])) {
      if (it.kind !== "trajectory") continue;
      const t = it.trajectory;
      indexRow(t); // label's index row keeps the hashed text
      const w = toWire(t);
      expect(w.c).toBeDefined();
      const back = carried(t);
      expect(Object.keys(back)).toEqual(Object.keys(t));
      expect(JSON.stringify(back)).toBe(JSON.stringify(t));
      expect(contentSha256(back)).toBe(contentSha256(t));
      expect(await judge.judge(back, { repeat: 0 })).toEqual(await judge.judge(t, { repeat: 0 }));
      n++;
    }
    expect(n).toBe(82);
  });

  it("carries the tool list in the text when there is one, and keeps an empty one as it is", () => {
    const base = { id: "x", source: { format: "t", path: "t" }, injections: { p: "do it" }, messages: [{ index: 0, role: "user", text: "héllo \ud800" }] };
    const withTools = { ...base, tools: [{ name: "f", description: "Do it.", parameters: { type: "object" } }], metadata: { k: 1 } } as Trajectory;
    contentSha256(withTools, true);
    expect(toWire(withTools).t.tools).toBeNull();
    expect(carried(withTools)).toEqual(withTools);
    const emptyTools = { ...base, tools: [] } as Trajectory;
    contentSha256(emptyTools, true);
    expect(toWire(emptyTools).t.tools).toEqual([]);
    expect(carried(emptyTools)).toEqual(emptyTools);
  });

  it("does not use a text made before the trajectory was given other messages, injections or tools", () => {
    const t = { id: "x", source: { format: "t", path: "t" }, injections: {}, messages: [{ index: 0, role: "user", text: "a" }] } as Trajectory;
    contentSha256(t, true);
    expect(keptContentText(t)).toBeDefined();
    t.messages = [{ index: 0, role: "user", text: "b" }];
    expect(keptContentText(t)).toBeUndefined();
    expect(toWire(t)).toEqual({ t });
  });
});
