/**
 * The exclusive lock of a run folder, `<runDir>/.lock` (`{pid, since, host}`), taken only by `label`
 * (`RunStore.open`); the read-only commands (`agree`, `status`, `report`, `compare`, `estimate`, the view) read
 * the run's files with `store/records.ts` and `readRunState` and never need it (test/store/lock.test.ts).
 *
 * Why not proper-lockfile (issue 27 asked; 4.1.2 checked): its staleness is time-based, a lock directory whose
 * mtime a timer in the holder refreshes (`update`, default 5 s) and that any process may take over once the mtime
 * is older than `stale` (default 10 s). That is the opposite of two rules this lock keeps: a lock written by
 * another host is never taken over (over NFS, attribute caching can show a live remote holder's mtime a minute
 * old, so a time-based takeover lets two hosts write one run), and a dead holder of this host is taken over at
 * once (its pid is checked), not 10 s later. A holder whose event loop is blocked longer than `stale` (a large
 * trajectory file parsed synchronously) would also lose its lock to a second run. Keeping both rules on top of
 * proper-lockfile would mean bypassing its staleness entirely, leaving it a `mkdir` and a timer; it would also
 * turn `.lock` from a file into a directory, which old runs' leftover lock files and `readRunLock` would have
 * to be taught. So the lock stays this file: written whole, hard-linked into place (atomic on local and NFS v3+
 * file systems), and taken over from a dead holder under `.lock.takeover`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Thrown when another live process holds a run's lock, or a process on another host does (its state is unknowable here). */
export class RunLockedError extends Error {
  constructor(
    public readonly runDir: string,
    public readonly pid: number,
    since: string,
    public readonly host?: string,
  ) {
    super(
      host
        ? `run ${runDir} is locked by process ${pid} on host ${host} (since ${since}); this host (${os.hostname()}) cannot tell whether it still runs, ` +
            `so the lock is never taken over from here (a labels folder on a shared drive). Wait for it to finish, or, once you know that process is gone, delete ${path.join(runDir, ".lock")}.`
        : `run ${runDir} is in use by process ${pid} (since ${since}); wait for it to finish or stop it first. ` +
            `If no such process exists, delete ${path.join(runDir, ".lock")}.`,
    );
    this.name = "RunLockedError";
  }
}

/**
 * Thrown when `<runDir>/.lock` exists but cannot be read as a lock (empty, not JSON, `null`, an array, no pid):
 * ipi-judge never writes such a file (locks are written whole), so it is not taken over silently; the message
 * names the file and how to remove it if it is stale.
 */
export class RunLockUnreadableError extends RunLockedError {
  constructor(
    runDir: string,
    public readonly problem: string,
  ) {
    super(runDir, -1, "unknown");
    const file = path.join(runDir, ".lock");
    this.message =
      `run ${runDir} has a lock file that cannot be read as a lock (${problem}): ${file}. ipi-judge never writes such a file, ` +
      `so it does not take it over. If no ipi-judge process is using this run, delete it (rm ${JSON.stringify(file)}) and try again.`;
    this.name = "RunLockUnreadableError";
  }
}

interface LockBody {
  pid?: number;
  since?: string;
  host?: string;
}

/**
 * Whether process `pid` runs on this host (`kill(pid, 0)`; EPERM: it runs, as another user), and is not a zombie: a
 * process that exited but whose parent has not reaped it yet still answers `kill(pid, 0)`, so its lock looked live
 * for as long as the parent waited (~0.3 s for a Node parent, for good under one that never reaps: task s41 #5).
 * On Linux its state in `/proc/<pid>/stat` tells it apart ({@link exitedState}); elsewhere, or when that file cannot
 * be read (another user's process under `hidepid`), `kill`'s answer stands: never a live holder called dead.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return exitedState(pid) === undefined;
}

/**
 * The state letter of process `pid` when `/proc/<pid>/stat` says it has exited (`Z` zombie, `X` dead), else
 * undefined (running, sleeping, stopped..., or not known: not Linux, the file unreadable).
 */
export function exitedState(pid: number): "Z" | "X" | undefined {
  if (process.platform !== "linux") return undefined;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) S ...": comm may hold spaces and parentheses, so the state is the first field after the last ")"
  const state = stat.slice(stat.lastIndexOf(")") + 1).trim()[0];
  return state === "Z" || state === "X" ? state : undefined;
}

/** Why a lock file's text is not a lock (`{pid: positive integer, since?, host?}`), or null when it is one. */
function lockProblem(raw: string): { problem: string } | { body: LockBody } {
  if (raw.trim() === "") return { problem: "it is empty" };
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { problem: `it is not JSON: ${JSON.stringify(raw.slice(0, 40))}` };
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return { problem: `it holds ${v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`}, not {pid, since, host}` };
  const pid = (v as LockBody).pid;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return { problem: "it records no process id (pid)" };
  return { body: v as LockBody };
}

function readBody(file: string): { raw: string; body: LockBody; problem?: string } | null {
  try {
    const raw = fs.readFileSync(file, "utf8");
    const r = lockProblem(raw);
    return "problem" in r ? { raw, body: {}, problem: r.problem } : { raw, body: r.body };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Take the exclusive lock of a run folder: `<runDir>/.lock` holding `{pid, since, host}`.
 *
 * A lock written on another host (`host` differs from `os.hostname()`: a labels folder on a network drive) is
 * never taken over, whatever its pid: that pid cannot be checked from here. A lock from this host whose process
 * is dead is stale and taken over as below.
 *
 * The lock file is written in full to a private temporary file and then hard-linked into place, so it never
 * exists half-written and `link(2)` fails atomically when a lock is already there. A lock left by a dead process
 * (a killed run) is taken over under a second lock, `.lock.takeover` (created with O_EXCL), so that two processes
 * that both see the same stale lock cannot both take it: the second one to get `.lock.takeover` finds the first
 * one's live lock and is refused.
 * @returns a function that releases the lock (idempotent).
 * @throws RunLockedError when a live process of this host, or any process of another host, holds the lock;
 *   RunLockUnreadableError (a RunLockedError) when the lock file cannot be read as a lock (empty, not JSON,
 *   `null`, an array, no pid): never taken over silently.
 */
export function acquireRunLock(runDir: string): () => void {
  const file = path.join(runDir, ".lock");
  const takeover = path.join(runDir, ".lock.takeover");
  const tmp = path.join(runDir, `.lock.${process.pid}.${Date.now()}.tmp`);
  const body = JSON.stringify({ pid: process.pid, since: new Date().toISOString(), host: os.hostname() });
  fs.writeFileSync(tmp, body);
  const release = () => {
    const cur = readBody(file);
    if (cur && cur.body.pid === process.pid) fs.rmSync(file, { force: true });
  };
  try {
    for (let attempt = 0; attempt < 200; attempt++) {
      try {
        fs.linkSync(tmp, file);
        let released = false;
        return () => {
          if (released) return;
          released = true;
          try {
            release();
          } catch {
            /* already gone */
          }
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
      const holder = readBody(file);
      if (!holder) continue; // released in between: try again
      if (holder.problem) throw new RunLockUnreadableError(runDir, holder.problem);
      const { pid, since, host } = holder.body;
      // A pid means nothing on another host: a lock written there is never stale from here.
      if (typeof host === "string" && host !== os.hostname()) throw new RunLockedError(runDir, typeof pid === "number" ? pid : -1, since ?? "unknown", host);
      if (typeof pid === "number" && pid !== process.pid && alive(pid)) throw new RunLockedError(runDir, pid, since ?? "unknown");
      // Stale: a dead holder of this host (an unreadable body was refused above).
      let gotTakeover = false;
      try {
        fs.writeFileSync(takeover, String(process.pid), { flag: "wx" });
        gotTakeover = true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        try {
          // A taker that died mid-takeover leaves this behind; it is never held for more than a moment.
          if (Date.now() - fs.statSync(takeover).mtimeMs > 10_000) fs.rmSync(takeover, { force: true });
        } catch {
          /* gone */
        }
      }
      if (gotTakeover) {
        try {
          const again = readBody(file);
          if (again && again.raw === holder.raw) fs.rmSync(file, { force: true });
        } finally {
          fs.rmSync(takeover, { force: true });
        }
      } else {
        sleepSync(10 + Math.floor(Math.random() * 20));
      }
    }
    throw new Error(`could not take the lock ${file}: too much contention`);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Who holds a run's lock: `null` when unlocked. `alive` is null when the holder is on another host (unknowable). */
export interface LockHolder {
  pid: number | null;
  host: string | null;
  since: string | null;
  alive: boolean | null;
  this_host: boolean;
  /** Set when the lock file cannot be read as a lock: why (pid, host, since are then null, alive unknowable). */
  unreadable?: string;
}

/**
 * Read a run folder's lock without taking it.
 * @returns the holder, or null when the run is not locked; `unreadable` says why a lock file is not a lock.
 */
export function readRunLock(runDir: string): LockHolder | null {
  const cur = readBody(path.join(runDir, ".lock"));
  if (!cur) return null;
  if (cur.problem) return { pid: null, host: null, since: null, alive: null, this_host: true, unreadable: cur.problem };
  const { pid, since, host } = cur.body;
  const thisHost = typeof host !== "string" || host === os.hostname();
  return {
    pid: typeof pid === "number" ? pid : null,
    host: typeof host === "string" ? host : null,
    since: typeof since === "string" ? since : null,
    alive: !thisHost ? null : typeof pid === "number" ? alive(pid) : false,
    this_host: thisHost,
  };
}
