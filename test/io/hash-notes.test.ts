/**
 * Red team 39 F: a trajectory whose system, user or assistant message carries an `error` (now a harness note, no
 * longer joined into the agent's text) hashes apart from its old hash, so its stored verdicts are judged again on
 * resume; every other trajectory hashes exactly as before.
 */
import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentSha256 } from "../../src/io/hash.js";
import type { Trajectory } from "../../src/types.js";
import { corpusRows, corpusTrajectory } from "../evidence/fixtures.js";

const old = (t: Trajectory): string =>
  crypto.createHash("sha256").update(JSON.stringify(Array.isArray(t.tools) && t.tools.length > 0 ? { m: t.messages, i: t.injections, t: t.tools } : { m: t.messages, i: t.injections })).digest("hex");

function traj(error?: string, role: "assistant" | "tool" = "assistant"): Trajectory {
  const m = { index: 1, role, text: "ok", ...(role === "tool" ? { tool_call_id: "c" } : {}), ...(error !== undefined ? { error } : {}) };
  return { id: "x", source: { format: "t", path: "t" }, injections: {}, messages: [{ index: 0, role: "user", text: "hi" }, m] };
}

describe("contentSha256 and harness notes", () => {
  it("hashes a trajectory with a note on a non-tool message apart from its old hash", () => {
    const t = traj("I can't help with that request.");
    expect(contentSha256(t)).not.toBe(old(t));
  });
  it("hashes everything else as before: tool errors, empty errors, the real AgentDojo corpus", () => {
    for (const t of [traj(), traj(""), traj("ValueError: nope", "tool")]) expect(contentSha256(t)).toBe(old(t));
    for (const row of corpusRows().filter((_, i) => i % 4 === 0)) {
      const t = corpusTrajectory(row);
      expect(contentSha256(t)).toBe(old(t));
    }
  });
});
