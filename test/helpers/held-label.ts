/**
 * A `label` of the built CLI stopped by a signal while the loopback server holds its replies: the set-up the Ctrl-C
 * (SIGINT) and SIGHUP tests share (test/cli/label-interrupt.test.ts, label-sighup.test.ts; `startLabel` also the
 * Ctrl-C tests with servers of their own). The server answers
 * `not_exposed` at once to the first `answerFirst` requests and holds every later reply until `release()` (called
 * after the CLI says it is stopping, so no clock decides what was in flight).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CLI } from "./cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "./fake-openai.js";
import { ROOT, SAMPLES } from "./paths.js";

const REPLY = JSON.stringify({ findings: [], label: "not_exposed", rationale: "nothing reached the agent" });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The held server, a temporary folder and a judges file naming one judge `fake` (concurrency 2) on it. */
export interface HeldServer {
  fake: FakeOpenAI;
  tmp: string;
  labels: string;
  judges: string;
  /** Let the held replies go. */
  release(): void;
  /** The `label` arguments for run `run` over the samples. */
  args(run: string): string[];
  /** Start `label` with `args` (the CLI's own process): its output so far, and its exit code when it closes. */
  start(args: string[]): HeldLabel;
  /** Release, close the server and remove the folder (afterAll). */
  close(): Promise<void>;
}

export interface HeldLabel {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  done: Promise<number | null>;
  /** Send `signal`, wait until the CLI says it is stopping, release the held replies; resolves with the exit code. */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/** Start the held server (module docstring); `prefix` names the temporary folder. */
export async function startHeldServer(answerFirst: number, prefix: string): Promise<HeldServer> {
  let release!: () => void;
  const held = new Promise<void>((ok) => (release = ok));
  const fake = await startFakeOpenAI(async (_req, n) => {
    if (n >= answerFirst) await held;
    return completion(REPLY);
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "fake", model: "fake-model", family: "openai", base_url: fake.url, concurrency: 2 }] }));
  const labels = path.join(tmp, "labels");
  return {
    fake,
    tmp,
    labels,
    judges,
    release,
    args: (run) => ["label", SAMPLES, "--judges", judges, "--run", run, "--labels-dir", labels],
    start: (args) => startLabel(args, release),
    close: async () => {
      release();
      await fake.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Start `label` with `args` in the built CLI's own process; `release` lets the held replies go once it says it is
 * stopping (`stop`). Also for tests that hold replies on servers of their own (label-interrupt-judges.test.ts).
 */
export function startLabel(args: string[], release: () => void): HeldLabel {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<number | null>((ok) => child.on("close", (code) => ok(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done,
    stop: async (signal) => {
      child.kill(signal);
      while (!/stopping/.test(stderr) && child.exitCode === null) await sleep(5);
      release();
      return done;
    },
  };
}
