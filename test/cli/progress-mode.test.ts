/** `--progress` and `--progress-interval` (src/cli/progress-mode.ts): auto follows the terminal, --json does not matter. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { progressOf } from "../../src/cli/progress-mode.js";
import { runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";

describe("progressOf", () => {
  it("auto (the default) is a bar on a terminal and lines otherwise; every 30 s by default", () => {
    expect(progressOf({}, true, {})).toMatchObject({ mode: "bar", intervalMs: 30_000 });
    expect(progressOf({ progress: "auto" }, false, {})).toMatchObject({ mode: "lines", intervalMs: 30_000 });
    expect(progressOf({ progress: "off", json: true } as never, false).mode).toBe("off");
    expect(progressOf({ progress: "lines" }, true).mode).toBe("lines");
    expect(progressOf({ progress: "bar" }, false).mode).toBe("bar");
    expect(progressOf({ progressInterval: "0.5" }, false, {}).intervalMs).toBe(500);
  });

  it("IPI_JUDGE_PROGRESS is the default; the flag wins; a bad value names the variable", () => {
    expect(progressOf({}, false, { IPI_JUDGE_PROGRESS: "off" }).mode).toBe("off");
    expect(progressOf({ progress: "lines" }, false, { IPI_JUDGE_PROGRESS: "off" }).mode).toBe("lines");
    expect(progressOf({}, true, { IPI_JUDGE_PROGRESS: "" }).mode).toBe("bar");
    expect(() => progressOf({}, false, { IPI_JUDGE_PROGRESS: "none" })).toThrow(/^IPI_JUDGE_PROGRESS must be one of auto, bar, lines, off, not "none"$/);
  });

  it("a bare --progress (commander's true) is auto, over IPI_JUDGE_PROGRESS too (new user 44 item 12)", () => {
    expect(progressOf({ progress: true }, true, {}).mode).toBe("bar");
    expect(progressOf({ progress: true }, false, {}).mode).toBe("lines");
    expect(progressOf({ progress: true }, true, { IPI_JUDGE_PROGRESS: "off" }).mode).toBe("bar");
    // a path taken as the mode: the error says how to write it
    expect(() => progressOf({ progress: "samples/agentdojo" }, false)).toThrow(/not "samples\/agentdojo" \(a bare --progress means auto, but it takes the word after it as its mode/);
  });

  it("refuses an unknown mode and an interval that is not a decimal number of seconds in (0, 86400]", () => {
    expect(() => progressOf({ progress: "quiet" }, false)).toThrow(/--progress must be one of auto, bar, lines, off, not "quiet"/);
    for (const bad of ["0", "-1", "abc", "1e3", "0x10", " 5", "86401"]) expect(() => progressOf({ progressInterval: bad }, false)).toThrow(/--progress-interval must be/);
  });
});

describe("a bare --progress on every command that takes it", () => {
  it("every command's --progress takes an optional value (one helper: addProgressOptions)", async () => {
    const mods = await Promise.all([
      import("../../src/cli/label.js"),
      import("../../src/cli/agree.js"),
      import("../../src/cli/sample.js"),
      import("../../src/cli/compare.js"),
      import("../../src/cli/report.js"),
      import("../../src/cli/committee.js"),
      import("../../src/cli/estimate.js"),
      import("../../src/cli/view.js"),
    ]);
    const program = new Command();
    for (const m of mods) for (const [k, f] of Object.entries(m)) if (k.startsWith("register") && typeof f === "function") (f as (p: Command) => void)(program);
    const withProgress = program.commands.filter((c) => c.options.some((o) => o.long === "--progress"));
    expect(withProgress.map((c) => c.name()).sort()).toEqual(["agree", "committee", "compare", "estimate", "label", "report", "sample", "view"]);
    for (const c of withProgress) expect(c.options.find((o) => o.long === "--progress")!.optional, c.name()).toBe(true);
  });

  it("label --dry-run ... --progress runs (exit 0), where it was refused as 'argument missing'", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-bare-progress-"));
    try {
      const r = await runCli(["label", path.join(DATA, "agentdojo"), "--run", "x", "--labels-dir", tmp, "--dry-run", "--progress"]);
      expect(r.stderr).not.toMatch(/argument missing/);
      expect(r.code).toBe(0);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
