/**
 * A Batch API chunk's files in the run folder (`batches/<judge>/<key>.requests.jsonl`, `<key>.state.jsonl` and
 * `<key>.keys.jsonl`), kept
 * apart from the round logic of `./batch.ts`: the state line of one conversation and the writer that appends a
 * request line and its state line, fsynced and closed before the chunk is listed (crash safety, `./batch.ts`).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ConversationState } from "../judges/llm-judge.js";
import type { AdaptKind } from "../providers/send.js";
import { BATCH_URL } from "../providers/batch-api.js";
import { batchWriteError, chunkNotSent } from "./batch-write-error.js";

/** One line of a chunk's state file. */
export interface StateLine {
  custom_id: string;
  conv: ConversationState;
  /** A truncated or empty reply was already resent with a larger max_tokens. */
  lengthRetried?: boolean;
  /** Resends after transient errors. */
  resends?: number;
  /** Parameters the server rejected for this line and the judge adapted to (resent once per kind). */
  adaptedFor?: AdaptKind[];
  /**
   * `contentSha256` of `conv.trajectory`, as its index row has it (the verdict's `content_sha256`, not hashed again
   * per result line); absent in lines written before it was kept (the trajectory is hashed then).
   */
  content_sha256?: string;
  /**
   * Since 2026-12 (issue 26): the SHA-256 (hex) of the conversation's system message (the rubric, one text per
   * judge config), left out of `conv.messages` and kept once in `system-<sha>.txt` beside the chunk files; with
   * {@link StateLine.usr}. Absent: `conv.messages` is whole (lines written before, or a conversation whose first
   * messages are not the plain system + user pair).
   */
  sys?: string;
  /**
   * The SHA-256 (hex) of the conversation's user message (the rendered trajectory), left out of `conv.messages`:
   * it is rendered again from `conv.trajectory`, `conv.nonce` and `conv.budgetChars` and must hash to this.
   */
  usr?: string;
}

/** A judge id as a folder name (anything but letters, digits, `.`, `_`, `-` becomes `_`). */
export function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]/g, "_");
}

/**
 * One line of a chunk's keys file (`<key>.keys.jsonl`, since 2026-12): which conversation a request line is, so a
 * resume learns what is in flight without parsing the state file (each state line holds a whole trajectory).
 */
export interface KeyLine {
  /** custom_id */
  c: string;
  /** trajectory id */
  t: string;
  /** repeat */
  r: number;
}

/**
 * A writer of one chunk's request, state and keys files. A file-system fault is thrown as a `StoreWriteError` naming
 * the file and saying that no batch was sent for the chunk (`./batch-write-error.ts`).
 */
export class ChunkWriter {
  requests = 0;
  bytes = 0;
  private reqFd: number;
  private stateFd: number;
  private keysFd: number;
  /**
   * @param of the batch whose conversations' next turns this chunk holds (a follow-up chunk), for the error message.
   */
  constructor(
    readonly dir: string,
    readonly key: string,
    readonly round: number,
    of?: string,
  ) {
    this.after = chunkNotSent(key, of);
    this.reqFd = this.guard("requests", () => {
      fs.mkdirSync(dir, { recursive: true });
      return fs.openSync(this.file("requests"), "w");
    });
    this.stateFd = this.guard("state", () => fs.openSync(this.file("state"), "w"));
    this.keysFd = this.guard("keys", () => fs.openSync(this.file("keys"), "w"));
  }
  /** What a write fault of this chunk says (`chunkNotSent`). */
  readonly after: string;
  private file(kind: "requests" | "state" | "keys"): string {
    return path.join(this.dir, `${this.key}.${kind}.jsonl`);
  }
  /** Run a write of one of the chunk's files; a file-system fault becomes the `StoreWriteError` naming it. */
  private guard<T>(kind: "requests" | "state" | "keys", write: () => T): T {
    try {
      return write();
    } catch (e) {
      throw batchWriteError(this.file(kind), e, this.after);
    }
  }
  add(line: StateLine, body: Record<string, unknown>): void {
    // written as strings: no Buffer per line (~25 KB of them a request, outside the heap the GC trigger watches)
    const req = JSON.stringify({ custom_id: line.custom_id, method: "POST", url: BATCH_URL, body }) + "\n";
    const reqBytes = this.guard("requests", () => writeAll(this.reqFd, req));
    this.guard("state", () => writeAll(this.stateFd, JSON.stringify(line) + "\n"));
    this.guard("keys", () => writeAll(this.keysFd, JSON.stringify({ c: line.custom_id, t: line.conv.trajectory.id, r: line.conv.repeat } satisfies KeyLine) + "\n"));
    this.requests++;
    this.bytes += reqBytes;
  }
  /**
   * Flush and close the three files. A chunk that got no request (a processed chunk whose conversations all ended:
   * its follow-up `<key>-f`) has its files removed instead: it is never listed, so nothing reads them.
   */
  close(): void {
    this.guard("requests", () => fs.fsyncSync(this.reqFd));
    this.guard("state", () => fs.fsyncSync(this.stateFd));
    fs.closeSync(this.reqFd);
    fs.closeSync(this.stateFd);
    this.guard("keys", () => fs.fsyncSync(this.keysFd));
    fs.closeSync(this.keysFd);
    if (this.requests === 0) for (const kind of ["requests", "state", "keys"]) fs.rmSync(path.join(this.dir, `${this.key}.${kind}.jsonl`), { force: true });
  }
  /** Close the three files without flushing (a write failed: the chunk is never listed; the next run removes it). */
  abandon(): void {
    for (const fd of [this.reqFd, this.stateFd, this.keysFd]) {
      try {
        fs.closeSync(fd);
      } catch {
        /* closing after a failed write: the write's error is the one said */
      }
    }
  }
}

/**
 * A short tag of a judge id for chunk keys: the first 8 hex digits of its SHA-256. Two judges whose ids give one
 * folder ({@link safeName}: "j/a" and "j_a") still get different chunk files. Keys written before it (no tag) are
 * read as they are: an entry's key is stored whole in the run's snapshot.
 */
export function judgeTag(judgeId: string): string {
  return createHash("sha256").update(judgeId).digest("hex").slice(0, 8);
}

/** Write a whole string (a short write, rare on a file, goes on with the bytes not written). @returns its UTF-8 bytes */
function writeAll(fd: number, text: string): number {
  const n = fs.writeSync(fd, text);
  const len = Buffer.byteLength(text);
  if (n === len) return len;
  const buf = Buffer.from(text);
  let off = n;
  while (off < len) off += fs.writeSync(fd, buf, off, len - off);
  return len;
}
