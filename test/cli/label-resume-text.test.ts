/**
 * The text line of a resume that took files as unchanged without reading them (the stamp fast path): the count
 * sits with "read" in one sentence (new-user report: "11384 trajectories read, (10471 of them ...)" had a stray comma).
 * Real vendored slice: test/data/like-for-like (14 AgentDojo runs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { DATA } from "../helpers/paths.js";

const SLICE = path.join(DATA, "like-for-like", "runs");

describe("label resume text", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-resume-text-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("says how many of the trajectories read were taken as unchanged unread, inside the same clause", async () => {
    const args = ["label", SLICE, "--run", "r", "--labels-dir", path.join(dir, "labels")];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("this invocation: 14 trajectories read, 14 verdicts stored");
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(unwrapText(again.stdout)).toMatch(/this invocation: 14 trajectories read \(14 of them taken as unchanged unread: [^)]*\), 0 verdicts stored, 14 already stored/);
  }, 120_000);
});
