/**
 * A resume's walk, read ahead on a second thread (issue 26): a worker thread lists the input folders and stats their
 * `*.json` files in the order the walk (`./walk.ts`) meets them, while the main thread does the per-file work of the
 * previous ones (the run's look-ups, the duplicate tables). The system calls (one `readdir` per folder, one `stat`
 * per file: a fifth of a resume's main-thread time) then run on the other core.
 *
 * Only an optimisation, never a source of truth: the walk takes a listing or a stat from here only for the folder
 * or file it asks for by name, in the order it meets them; anything else (a folder or file not met by the worker in
 * that order, an error, a worker slow to answer or gone) is read by the walk itself, synchronously, as without it.
 * The worker follows no symbolic link (a folder reached through one is listed by the walk); it reads at most
 * {@link MAX_AHEAD} batches ahead of the walk (bounded memory). It does not enter this invocation's `--labels-dir` folder
 * (by resolved path: a resolved path equal to its real path names it), which the walk passes over (`./own-folders.ts`);
 * other folders the walk passes over (a run or sample folder met in an input folder) it lists like any: the walk
 * skips their records.
 */
import { receiveMessageOnPort, MessageChannel, Worker, type MessagePort } from "node:worker_threads";

/** An entry of a folder listing: its name and type, as `fs.Dirent` gives them (the subset the walk asks). */
export interface Entry {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

/** A file's stat as the resume's check reads it (`fs.Stats` fields: bytes, ms). */
export interface AheadStat {
  isFile: boolean;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

/** Batches the worker may post ahead of the walk (of {@link BATCH} records each). */
const MAX_AHEAD = 64;
const BATCH = 256;
/** A wait for the worker longer than this (ms) turns the look-ahead off: the walk reads for itself. */
const GIVE_UP_MS = 5000;

/** Record kinds of the worker's batches (flat arrays). */
const END = 0;
const LISTING = 1; // [1, folder, names[], types string ("d" folder, "f" file, "l" link, "o" other)]
const STAT = 2; // [2, file, isFile 0|1, size, mtimeMs, ctimeMs]
const LIST_ERROR = 3; // [3, folder]
const STAT_ERROR = 4; // [4, file]

/** The worker: the walk's order (names sorted by UTF-16 code units, `.` names skipped), plain folders only. */
const WORKER = `
const { workerData } = require("node:worker_threads");
const fs = require("node:fs");
const path = require("node:path");
const { port, ctl, paths, labels } = workerData;
const flag = new Int32Array(ctl); // [batches posted, batches taken, stop]
let batch = [];
let records = 0;
function flush() {
  if (batch.length > 0) {
    port.postMessage(batch);
    batch = [];
    records = 0;
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
  }
  while (Atomics.load(flag, 2) === 0 && Atomics.load(flag, 0) - Atomics.load(flag, 1) >= ${MAX_AHEAD}) Atomics.wait(flag, 1, Atomics.load(flag, 1), 1000);
  if (Atomics.load(flag, 2) !== 0) throw new Error("stopped");
}
function record() {
  if (++records >= ${BATCH}) flush();
}
const JSON_EXT = /\\.json$/i;
function visit(dir) {
  if (labels !== undefined && path.resolve(dir) === labels) return; // the --labels-dir folder: the walk passes it over
  let ents;
  try {
    ents = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    batch.push(${LIST_ERROR}, dir);
    record();
    return;
  }
  const names = [];
  let types = "";
  ents = ents.filter((e) => !e.name.startsWith("."));
  ents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of ents) {
    names.push(e.name);
    types += e.isDirectory() ? "d" : e.isFile() ? "f" : e.isSymbolicLink() ? "l" : "o";
  }
  batch.push(${LISTING}, dir, names, types);
  record();
  for (let i = 0; i < names.length; i++) {
    const full = path.join(dir, names[i]);
    if (types[i] === "d") visit(full);
    else if (types[i] === "f" && JSON_EXT.test(names[i])) {
      let s;
      try {
        s = fs.statSync(full);
      } catch {
        batch.push(${STAT_ERROR}, full);
        record();
        continue;
      }
      batch.push(${STAT}, full, s.isFile() ? 1 : 0, s.size, s.mtimeMs, s.ctimeMs);
      record();
    }
  }
}
try {
  for (const p of paths) {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) visit(p);
  }
} catch {
  // stopped
} finally {
  batch.push(${END});
  port.postMessage(batch);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}
`;

class AheadEntry implements Entry {
  constructor(
    readonly name: string,
    private readonly type: string,
  ) {}
  isDirectory(): boolean {
    return this.type === "d";
  }
  isFile(): boolean {
    return this.type === "f";
  }
  isSymbolicLink(): boolean {
    return this.type === "l";
  }
}

/**
 * The listings and stats a worker thread read ahead for one walk of `paths` (module docstring). Ask in the walk's
 * order; {@link close} when the walk ends (or stops early).
 */
export class WalkAhead {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly flag: Int32Array;
  private buf: unknown[] = [];
  private at = 0;
  private done = false;

  /** Start the worker on `paths` (the walk's input paths, in order); `labelsReal`: the real path of the `--labels-dir` folder. */
  constructor(paths: readonly string[], labelsReal?: string) {
    const { port1, port2 } = new MessageChannel();
    const ctl = new SharedArrayBuffer(12);
    this.flag = new Int32Array(ctl);
    this.port = port1;
    this.worker = new Worker(WORKER, { eval: true, workerData: { port: port2, ctl, paths: [...paths], labels: labelsReal }, transferList: [port2], resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 } });
    // a small young generation: the default one let the worker's garbage grow the 1M resume's peak by ~40 MB (4 MB:
    // ~10 MB); the old one holds a listing of up to several hundred thousand names (a larger folder: out of memory,
    // the worker ends and the walk reads for itself)
    this.worker.unref();
    this.worker.on("error", () => (this.done = true)); // the walk reads for itself
  }

  /**
   * The listing of folder `dir` (named as the walk names it: an input path, or `path.join` of a listed folder and a
   * plain sub-folder's name), `.` names left out, sorted by name; undefined when the walk must list it itself.
   */
  listing(dir: string): Entry[] | undefined {
    for (;;) {
      const kind = this.peek();
      if (kind === undefined) return undefined;
      const key = this.buf[this.at + 1];
      if (kind === LISTING) {
        this.at += 4;
        if (key !== dir) continue;
        const names = this.buf[this.at - 2] as string[];
        const types = this.buf[this.at - 1] as string;
        const out: Entry[] = new Array(names.length);
        for (let i = 0; i < names.length; i++) out[i] = new AheadEntry(names[i]!, types[i]!);
        return out;
      }
      this.at += kind === STAT ? 6 : 2;
      if (kind === LIST_ERROR && key === dir) return undefined;
    }
  }

  /** The stat of `file` (a `*.json` file the worker's listing gave as a plain file), or undefined (stat it yourself). */
  stat(file: string): AheadStat | undefined {
    for (;;) {
      const kind = this.peek();
      if (kind === undefined) return undefined;
      const key = this.buf[this.at + 1];
      if (kind === STAT) {
        this.at += 6;
        if (key !== file) continue;
        const b = this.buf;
        const i = this.at - 4;
        return { isFile: b[i] === 1, size: b[i + 1] as number, mtimeMs: b[i + 2] as number, ctimeMs: b[i + 3] as number };
      }
      this.at += kind === LISTING ? 4 : 2;
      if (kind === STAT_ERROR && key === file) return undefined;
    }
  }

  /** Stop the worker (its batches not taken are dropped). */
  close(): void {
    this.done = true;
    Atomics.store(this.flag, 2, 1);
    Atomics.notify(this.flag, 1);
    this.port.close();
    void this.worker.terminate();
  }

  /** The kind of the next record, waiting for the worker's next batch when needed; undefined at the end. */
  private peek(): number | undefined {
    while (!this.done && this.at >= this.buf.length) this.next();
    if (this.done) return undefined;
    const kind = this.buf[this.at] as number;
    if (kind === END) this.done = true;
    return kind === END ? undefined : kind;
  }

  /** Take the worker's next batch, waiting up to {@link GIVE_UP_MS} for it (then the look-ahead is off). */
  private next(): void {
    const start = Date.now();
    for (;;) {
      const posted = Atomics.load(this.flag, 0);
      const m = receiveMessageOnPort(this.port);
      if (m !== undefined) {
        this.buf = m.message as unknown[];
        this.at = 0;
        Atomics.add(this.flag, 1, 1);
        Atomics.notify(this.flag, 1);
        return;
      }
      if (Date.now() - start > GIVE_UP_MS) {
        this.done = true;
        return;
      }
      Atomics.wait(this.flag, 0, posted, 50);
    }
  }
}
