/** `ipi-judge view`'s command line: usage errors exit 2 with a message, before any server starts. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

describe("ipi-judge view (usage)", () => {
  it("refuses an unknown run, --blind without --sample, a sample folder without a manifest, a bad port", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-cli-"));
    fs.mkdirSync(path.join(dir, "labels", "r"), { recursive: true });
    fs.writeFileSync(path.join(dir, "labels", "r", "verdicts.jsonl"), "");
    const base = ["view", "--labels-dir", path.join(dir, "labels"), "--no-open"];
    const cases: Array<[string[], RegExp]> = [
      [["--run", "nope"], /no run "nope"/],
      [["--run", "r", "--blind"], /--blind .*--sample/],
      [["--run", "r", "--sample", dir], /holds no manifest\.jsonl/],
      [["--run", "r", "--port", "70000"], /--port/],
    ];
    for (const [args, msg] of cases) {
      const r = await runCli([...base, ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stdout).toBe("");
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("says on stderr that it is reading, before the read and the URL (new user 48: 10-18 s with nothing said)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-view-cli-"));
    fs.mkdirSync(path.join(dir, "labels", "r"), { recursive: true });
    fs.writeFileSync(path.join(dir, "labels", "r", "verdicts.jsonl"), "");
    fs.mkdirSync(path.join(dir, "s"));
    fs.writeFileSync(path.join(dir, "s", "manifest.jsonl"), "");
    // a run and sample that cannot be served: the line comes first all the same, then the failure
    const r = await runCli(["view", "--labels-dir", path.join(dir, "labels"), "--no-open", "--run", "r", "--sample", path.join(dir, "s"), "--progress", "lines"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.split("\n")[0]).toBe(`ipi-judge: view: reading run r and sample ${path.join(dir, "s")}; the URL follows once the server is up`);
    const off = await runCli(["view", "--labels-dir", path.join(dir, "labels"), "--no-open", "--run", "r", "--sample", path.join(dir, "s"), "--progress", "off"]);
    expect(off.stderr).not.toContain("view: reading run");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
