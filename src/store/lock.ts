import fs from "node:fs";
import path from "node:path";

/** Thrown when another live process holds a run's lock. */
export class RunLockedError extends Error {
  constructor(
    public readonly runDir: string,
    public readonly pid: number,
    since: string,
  ) {
    super(
      `run ${runDir} is in use by process ${pid} (since ${since}); wait for it to finish or stop it first. ` +
        `If no such process exists, delete ${path.join(runDir, ".lock")}.`,
    );
    this.name = "RunLockedError";
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Take the exclusive lock of a run folder: `<runDir>/.lock` holding `{pid, since}`, created with O_EXCL.
 * A lock left by a dead process (killed run) is taken over.
 * @returns a function that releases the lock (idempotent).
 * @throws RunLockedError when a live process holds the lock.
 */
export function acquireRunLock(runDir: string): () => void {
  const file = path.join(runDir, ".lock");
  const body = JSON.stringify({ pid: process.pid, since: new Date().toISOString() });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, body, { flag: "wx" });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          const cur = JSON.parse(fs.readFileSync(file, "utf8"));
          if (cur.pid === process.pid) fs.unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let holder: { pid?: number; since?: string } = {};
      try {
        holder = JSON.parse(fs.readFileSync(file, "utf8"));
      } catch {
        /* half-written lock: treat as stale */
      }
      if (typeof holder.pid === "number" && holder.pid !== process.pid && alive(holder.pid)) {
        throw new RunLockedError(runDir, holder.pid, holder.since ?? "unknown");
      }
      try {
        fs.unlinkSync(file);
      } catch {
        /* raced with another taker */
      }
    }
  }
  throw new Error(`could not take the lock ${file}`);
}
