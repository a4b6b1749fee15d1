/**
 * `view --blind` without `--port` (src/view/blind-port.ts): the port derived from the sample folder, the same at
 * every start (a blind browser's claims are in its localStorage, per port); taken: another port, with a warning.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { DATA } from "../helpers/paths.js";
import { blindPortOf, BLIND_PORT_MIN, BLIND_PORT_SPAN } from "../../src/view/blind-port.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-blind-port-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Run `view ARGS` until its URL line, then stop it: the URL and stderr. */
function firstLine(args: string[]): Promise<{ url: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, "view", ...args, "--no-open"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      if (!out.includes("\n")) return;
      child.once("exit", () => resolve({ url: out.split("\n")[0], stderr: err }));
      setTimeout(() => child.kill("SIGTERM"), 300); // let the warnings after the URL reach stderr
    });
    child.once("exit", (code) => (out.includes("\n") ? undefined : reject(new Error(`view exited ${code}: ${err}`))));
  });
}

describe("a blind view's default port", () => {
  it("is derived from the sample folder, in range, stable", () => {
    const p = blindPortOf("/some/study");
    expect(p).toBe(blindPortOf("/some/study/"));
    expect(p).toBeGreaterThanOrEqual(BLIND_PORT_MIN);
    expect(p).toBeLessThan(BLIND_PORT_MIN + BLIND_PORT_SPAN);
  });

  it("is used without --port; when taken, any free port with a warning that claims made on the other will not be found", async () => {
    const labels = path.join(tmp, "labels");
    const study = path.join(tmp, "study");
    expect((await runCli(["label", path.join(DATA, "agentdyn-view"), "--run", "dyn", "--labels-dir", labels])).code).toBe(0);
    expect((await runCli(["sample", "--run", "dyn", "--labels-dir", labels, "--random", "3", "--disagreement", "0", "--seed", "7", "--out", study])).code).toBe(0);
    const args = ["--run", "dyn", "--labels-dir", labels, "--sample", study, "--blind"];
    const want = blindPortOf(study);
    const a = await firstLine(args);
    expect(Number(new URL(a.url).port)).toBe(want);
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(want, "127.0.0.1", () => r()));
    try {
      const b = await firstLine(args);
      expect(Number(new URL(b.url).port)).not.toBe(want);
      expect(b.stderr).toContain(`port for this sample folder, ${want}, is not free (EADDRINUSE)`);
      expect(b.stderr).toContain("will not be found");
      // --port still wins, and without --blind any free port as before
      const c = await firstLine([...args, "--port", "0"]);
      expect(c.stderr).not.toContain("is not free");
    } finally {
      blocker.close();
    }
  }, 120_000);
});
