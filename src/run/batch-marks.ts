/**
 * A Batch API chunk's "stored" marks (`batches/<judge>/<key>.stored.jsonl`, one line `{c, s}` per result line whose
 * verdict was stored): a chunk processed again after a stop skips exactly those (red team 26: every verdict was
 * appended again). The mark is written at once; the verdict reaches `verdicts.jsonl` at the end of the event-loop
 * turn (`../store/journal.ts`), so a process killed between the two left marks whose verdict was never written (red
 * team 33: 84 marks, 45 verdicts; the resume called the run complete). So a mark is trusted only when its verdict is
 * in the store: `s` is the storage ordinal the verdict was to get (`VerdictLedger.verdictsStored`), and the mark holds
 * when the latest stored verdict of its (trajectory, judge, repeat) has an ordinal at or after it
 * (`VerdictLedger.seqOf`; no clock). A mark whose verdict is not there is not a mark: its line is stored again from
 * the downloaded result file. Marks of older builds (no `s`) hold when any verdict of the key is stored.
 */
import fs from "node:fs";
import { readJsonl } from "../io/jsonl.js";
import type { VerdictLedger } from "../store/ledger.js";
import { batchWriteError } from "./batch-write-error.js";

/** One mark line. */
interface MarkLine {
  /** custom_id */
  c: string;
  /** the storage ordinal of its verdict (absent in marks of older builds) */
  s?: number;
}

/** The marks of one chunk, read at the start of its processing and appended to as its verdicts are stored. */
export class StoredMarks {
  private readonly marks = new Map<string, number | undefined>();
  private fd = -1;
  /** Marks found without their verdict (the lines stored again): said by the caller. */
  unbacked = 0;

  private constructor(
    private readonly ledger: VerdictLedger,
    private readonly judgeId: string,
    private readonly file: string,
    private readonly after: string,
  ) {}

  /**
   * Read a chunk's marks file (missing: no marks) and open it for appending.
   * @param after what a write fault of the file says is true and what to do (`marksNotSaved`).
   * @throws StoreWriteError naming the file when it cannot be opened or (by {@link mark}) written.
   */
  static async open(file: string, ledger: VerdictLedger, judgeId: string, after: string): Promise<StoredMarks> {
    const m = new StoredMarks(ledger, judgeId, file, after);
    for await (const l of readJsonl<MarkLine>(file)) if (typeof l.c === "string") m.marks.set(l.c, typeof l.s === "number" ? l.s : undefined);
    try {
      m.fd = fs.openSync(file, "a");
    } catch (e) {
      throw batchWriteError(file, e, after);
    }
    return m;
  }

  /**
   * Whether the line `customId` of conversation (trajectory, repeat) has its verdict stored (module docstring); a
   * mark without its verdict is counted in {@link unbacked}.
   */
  stored(customId: string, trajectoryId: string, repeat: number): boolean {
    if (!this.marks.has(customId)) return false;
    const s = this.marks.get(customId);
    const seq = this.ledger.seqOf(trajectoryId, this.judgeId, repeat);
    const held = s === undefined ? seq >= 0 : seq >= s;
    if (!held) this.unbacked++;
    return held;
  }

  /** The storage ordinal the next verdict stored gets: read before storing it, given to {@link mark}. */
  nextSeq(): number {
    return this.ledger.verdictsStored;
  }

  /** Mark a line's verdict stored (`seq`: what {@link nextSeq} said before it was stored). */
  mark(customId: string, seq: number): void {
    try {
      fs.writeSync(this.fd, `${JSON.stringify({ c: customId, s: seq })}\n`);
    } catch (e) {
      throw batchWriteError(this.file, e, this.after);
    }
  }

  close(): void {
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = -1;
  }
}
