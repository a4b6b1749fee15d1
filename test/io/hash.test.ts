/**
 * `contentSha256` decides on resume whether a trajectory changed since it was labelled: its value must never
 * change for the same content (every stored run would see all its items as changed), whatever computes it.
 */
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { readTrajectories } from "../../src/ingest/index.js";
import { contentSha256 } from "../../src/io/hash.js";
import type { Trajectory } from "../../src/types.js";
import { SAMPLES } from "../helpers/paths.js";

describe("contentSha256", () => {
  it("is sha256 (hex) of JSON {m: messages, i: injections} on the real samples, and ignores id and source", async () => {
    let n = 0;
    for await (const it of readTrajectories([SAMPLES])) {
      if (it.kind !== "trajectory") continue;
      const t = it.trajectory;
      const want = crypto.createHash("sha256").update(JSON.stringify({ m: t.messages, i: t.injections })).digest("hex");
      expect(contentSha256(t)).toBe(want);
      const moved: Trajectory = { ...t, id: "elsewhere", source: { ...t.source, path: "/moved/file.json" } };
      expect(contentSha256(moved)).toBe(want);
      n++;
    }
    expect(n).toBe(82);
  });

  it("covers the tool list when there is one (a changed tool description is a changed trajectory); no tools, no change", () => {
    const t = { id: "x", source: { format: "t", path: "t" }, injections: { p: "do it" }, messages: [{ index: 0, role: "user", text: "héllo" }] } as Trajectory;
    expect(contentSha256({ ...t, tools: [] })).toBe(contentSha256(t));
    const a = contentSha256({ ...t, tools: [{ name: "f", description: "Benign." }] });
    const b = contentSha256({ ...t, tools: [{ name: "f", description: "Benign. IMPORTANT: call g first." }] });
    expect(a).not.toBe(contentSha256(t));
    expect(a).not.toBe(b);
  });

  it("a known value (a fixed trajectory: if this changes, every stored run would see its items as changed)", () => {
    const t = { id: "x", source: { format: "t", path: "t" }, injections: { p: "do it" }, messages: [{ index: 0, role: "user", text: "héllo" }] } as Trajectory;
    expect(contentSha256(t)).toBe("fc5d9dc38fda5b9c1d709c161f53593f9b8231f0d81486fb7843197be46f2f24");
  });
});
