import { describe, expect, it } from "vitest";
import os from "node:os";
import path from "node:path";
import { runCli } from "../helpers/cli.js";
import { jsonError } from "../../src/cli/main.js";

describe("a failed --json command prints its error as JSON on stdout (verify 33 L1)", () => {
  it("a usage error (exit 2) and a bad option: {error: {exit_code, kind, message}}, the message on stderr too", async () => {
    const labels = path.join(os.tmpdir(), "ipi-json-error-none");
    const r = await runCli(["agree", "--run", "nope", "--labels-dir", labels, "--reference", "security", "--json"]);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ error: { exit_code: 2, kind: "usage", message: expect.stringMatching(/^no run "nope" in /) } });
    expect(r.stderr).toMatch(/^ipi-judge: no run "nope"/);
    const bad = await runCli(["agree", "--run", "x", "--bogus", "--json"]);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error).toEqual({ exit_code: 2, kind: "usage", message: "unknown option '--bogus'" });
  });
  it("without --json (or with it only after --) stdout stays empty", async () => {
    const r = await runCli(["agree", "--run", "nope", "--labels-dir", path.join(os.tmpdir(), "ipi-json-error-none"), "--reference", "security"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
  });
  it("a fatal error is kind fatal", () => {
    expect(jsonError(new Error("could not download"), 1)).toEqual({ error: { exit_code: 1, kind: "fatal", message: "could not download" } });
  });
});
