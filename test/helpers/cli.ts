import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT } from "./paths.js";

/** The `ipi-judge` command as shipped (`bin` in package.json): the bundle `npm run build` writes (`npm test` builds it first, in `pretest`). */
export const CLI = path.join(ROOT, "dist", "bin", "ipi-judge.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI with arguments; resolves when it exits. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? ROOT,
      // COLUMNS only when the test gives it: a shell's own would fit the text tables to its terminal (src/cli/terminal-width.ts)
      env: { ...process.env, COLUMNS: undefined, ...opts.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
