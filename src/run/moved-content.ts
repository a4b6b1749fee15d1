/**
 * A moved or renamed input (red team 39, high): in AgentDojo layout the model folder's name is part of every
 * trajectory id, so renaming that folder (or moving a run folder given with relative paths) made every trajectory a
 * new id. `label` judged each again (paid again with an LLM judge) and, when it could not tell where the old folder
 * went, counted both ids in every figure.
 *
 * What is done: before a trajectory the run holds no verdicts for is judged, its content hash is looked up among the
 * trajectories the run held when this invocation opened it; one whose recorded input file no longer exists (from this
 * directory) and whose stored verdicts cover a repeat this invocation would send (same judge, prompt,
 * configuration and content) is the same trajectory moved: its current verdicts made on this content are copied under
 * the new id (`carried_from` names the old id; `cost_usd` 0 and no tokens: no request was made, the old verdict's cost
 * is in the run's paid total once) and only what they do not cover is sent (brk40: a judge or repeat the old id never
 * had made every judge judge it again, the covered ones paid twice). The old id is then left out of every figure as an `input_removed`
 * trajectory (`./removed-inputs.ts` takes an unmet id whose file is gone and whose content this read met under another
 * id as moved, even where it cannot tell where its folder went). A real copy (a stored id of that content whose file
 * is still there: the old file, or an earlier move's new one) is judged and counted as before, and said (`same_content`, `../store/same-content-record.ts`).
 * A move onto an id the run holds verdicts of other content for (a folder renamed onto the name of another whose files
 * are gone, verify41) is carried too: those verdicts of the path's earlier content are never reused for this content
 * (the carried ones supersede them, said in the statement); verdicts it holds on this content are kept. Two folders
 * whose names were swapped (recover42: each was judged again, paid again): a stored id whose file is there but holds
 * other content now (`./held-content.ts`: read again by this invocation, or its stamp changed and its one file reads
 * as other content) is not a copy's original but the trajectory moved, and is carried like a gone one, said in the
 * statement. A stored id whose file is there and unstamped (a multi-item file, a run whose injected text came from
 * other files) cannot be told cheaply: taken as a copy, judged as before.
 *
 * Cost: the stored content codes as the run was opened (4 bytes per stored trajectory: the read replaces a changed
 * one's); nothing more on a run whose new trajectories match no stored content; an index of them (8 bytes per stored
 * trajectory) built at the first trajectory with work left; one read of `verdicts.jsonl` at the first match, keeping
 * the verdicts of trajectories whose input file is gone or may hold other content now, and only those.
 */
import fs from "node:fs";
import path from "node:path";
import { readJsonl } from "../io/jsonl.js";
import { journalSkips } from "../store/skipped-lines.js";
import { NOT_VERDICT, currentVerdictKey, verdictRecordCheck } from "../store/records.js";
import type { RunStore } from "../store/run-store.js";
import type { TrajectoryIndexRow } from "../store/records.js";
import type { Verdict } from "../types.js";
import { HeldContent, lineOf } from "./held-content.js";

/** How many moves the statement names. */
const SHOWN = 3;
/** Most file paths whose existence is remembered at once (then forgotten and asked again). */
const EXISTS_MEMO_MAX = 4096;

/** Finds a trajectory's earlier id by content and carries its verdicts over (module docstring). */
export class MovedContent {
  /** slots below this were stored before this invocation's read began (the read adds its new ids after them) */
  private readonly openSize: number;
  /** per stored slot: its content code when the run was opened (the read replaces a changed trajectory's) */
  private readonly openCodes: Int32Array;
  /** whether a stored id's file that is there still holds its stored content (./held-content.ts) */
  private readonly held: HeldContent;
  /** the stored slots sorted by content code, and their codes (built at the first trajectory with work left) */
  private index?: { slots: Int32Array; codes: Int32Array };
  /** per old id whose input is gone: its current verdicts (full), by `currentVerdictKey` (read at the first match) */
  private goneVerdicts?: Map<string, Map<string, Verdict>>;
  private readonly used = new Set<number>();
  /**
   * per stored slot read by this invocation with other content: whether its verdicts covered its content as the run
   * was opened, asked before this invocation's verdicts on its new content supersede them (a swapped folder's
   * trajectory carries from it after)
   */
  private readonly coveredAtOpen = new Map<number, boolean>();
  private readonly exists = new Map<string, boolean>();
  /** the moves made by this invocation: old id, new id, and their files */
  readonly moves: Array<{ from: string; to: string; fromFile: string; toFile: string; swapped: boolean }> = [];
  /** how many verdicts were carried over */
  verdicts = 0;
  /** of the moves from a gone file, those onto an id that held verdicts of other content (its path held another trajectory), and those verdicts */
  occupied = 0;
  superseded = 0;
  /** of the moves, those from an id whose file is there but holds other content now (folders swapped), and the verdicts they superseded */
  swapped = 0;
  swappedSuperseded = 0;
  /**
   * the ids onto which a swapped move carried verdicts that superseded those of the id's earlier content (a chat-JSONL
   * row moved onto a line that held another row): an earlier content no move carried on is a row no longer in the input
   * (`./moved-removed.ts`, runs55 #3)
   */
  readonly displaced: string[] = [];

  /** @param store the run's store, opened; made before the read starts (the read adds ids to its table). */
  constructor(private readonly store: RunStore) {
    this.openSize = store.idSlots.size;
    this.openCodes = new Int32Array(this.openSize);
    for (let s = 0; s < this.openSize; s++) this.openCodes[s] = store.hashes.code(s);
    this.held = new HeldContent(store, this.openCodes);
  }

  /**
   * Carry the verdicts of `t`'s (its index row's) earlier id over when `t` is a moved trajectory (module docstring).
   * @param hasWork whether `t` has repeats to send (`repeatsLeft` > 0): nothing is done otherwise (an ordinary resume).
   * @param covers whether an old id's stored verdicts leave less to send for the given content than none would (some
   *   covered).
   * @returns the old id whose verdicts were carried, or undefined.
   * @throws the store's write error.
   */
  async carry(t: TrajectoryIndexRow, content: string, hasWork: () => boolean, covers: (oldId: string, content: string) => boolean): Promise<string | undefined> {
    if (this.openSize === 0) return undefined;
    const self = this.store.idSlots.find(t.id);
    // read with other content than it was stored with: what its verdicts covered of its old content, asked now, before
    // verdicts on its new content supersede them (a trajectory swapped onto another path carries from this id later)
    if (self !== -1 && self < this.openSize && this.openCodes[self] !== -1 && this.held.reread(self) && !this.coveredAtOpen.has(self))
      this.coveredAtOpen.set(self, covers(t.id, this.store.hashes.pool.value(this.openCodes[self])));
    const code = this.store.hashes.pool.find(content);
    if (code === -1 || code === this.store.hashes.pool.find("") || !hasWork()) return undefined;
    // the content still held under an id whose file is there and holds it: `t` is a copy of it, not a move (judged,
    // and said); a file there that holds other content now (folders swapped) is not (./held-content.ts)
    const sourceOf = (slot: number) => this.store.trajectorySource(this.store.idSlots.id(slot))?.replace(/:\d+$/, "");
    for (const slot of this.candidates(code)) {
      const file = slot === self ? undefined : sourceOf(slot);
      if (file && this.there(file) && (await this.held.holds(slot, file))) return undefined;
    }
    for (const slot of this.candidates(code)) {
      if (slot === self || this.used.has(slot)) continue;
      const oldId = this.store.idSlots.id(slot);
      const file = this.store.trajectorySource(oldId)?.replace(/:\d+$/, "");
      if (!file || !(this.coveredAtOpen.get(slot) ?? covers(oldId, content))) continue;
      const swapped = this.there(file);
      if (swapped && (await this.held.holds(slot, file))) continue;
      const held = (await this.verdictsOfGone()).get(oldId);
      if (!held || held.size === 0) continue;
      let copied = 0;
      let superseded = 0;
      for (const v of held.values()) {
        // a verdict the new id holds already on this content (another judge's, stored before an interruption), or on
        // content not known, is never replaced: what is missing is judged. One on other content (the path held another
        // trajectory: a folder renamed onto the name of another whose files are gone, verify41) is never reused for
        // this content: the carried verdict supersedes it (before: the move was not carried at all, every judge paid again)
        const mine = this.store.ledger.latestOf(t.id, v.judge_id, v.repeat);
        if (mine !== undefined) {
          const was = this.store.ledger.contentOf(mine, t.id);
          if (was === null || was === content) continue;
        }
        // only a verdict made on this content: the old id's verdict of a judge this invocation does not run can be on
        // its earlier content (the file edited, then judged again by other judges only); carried, it read as a verdict
        // of this content under the new id (brk40)
        if (this.store.ledger.contentOf({ content_sha256: v.content_sha256 ?? "" }, oldId) !== content) continue;
        this.store.addVerdict(movedVerdict(v, t));
        copied++;
        if (mine !== undefined) superseded++;
      }
      if (copied === 0) continue;
      this.used.add(slot);
      this.verdicts += copied;
      if (swapped) {
        this.swapped++;
        this.swappedSuperseded += superseded;
        if (superseded) this.displaced.push(t.id);
      } else if (superseded) {
        this.occupied++;
        this.superseded += superseded;
      }
      this.moves.push({ from: oldId, to: t.id, fromFile: file, toFile: path.resolve(t.source?.path ?? ""), swapped });
      return oldId;
    }
    return undefined;
  }

  /**
   * The stored ids other than `id` that held content `sha` when the run was opened (before this read replaced any):
   * the ids a trajectory of that content may be carried from (`./carry-candidates.ts`; the index built at the first call).
   */
  idsHolding(sha: string, id: string): string[] {
    const code = this.store.hashes.pool.find(sha);
    if (this.openSize === 0 || code === -1) return [];
    return [...this.candidates(code)].map((s) => this.store.idSlots.id(s)).filter((x) => x !== id);
  }

  /** What label says of the moves, or undefined for none: `moved N trajectories: verdicts carried over ...`. */
  statement(): string | undefined {
    const n = this.moves.length;
    if (n === 0) return undefined;
    const rel = (f: string) => path.relative(process.cwd(), f) || f;
    // a move within one file (a chat-JSONL row moved to another line) named by its ids: "chat.jsonl -> chat.jsonl" said nothing (runs55)
    const eg = (ms: typeof this.moves) => ms.slice(0, SHOWN).map((m) => (m.fromFile === m.toFile ? `${m.from} -> ${m.to}` : `${rel(m.fromFile)} -> ${rel(m.toFile)}`)).join("; ");
    const gone = this.moves.filter((m) => !m.swapped);
    const swapped = this.moves.filter((m) => m.swapped);
    return (
      `moved ${n} trajector${n === 1 ? "y" : "ies"}: verdicts carried over (${this.verdicts} verdict${this.verdicts === 1 ? "" : "s"}, no judge call): the same content ` +
      `(messages, injections, tools) under a new id` +
      (gone.length
        ? `${swapped.length ? `; ${gone.length} of them` : ""} whose old input file is gone, e.g. ${eg(gone)}; the old ids are left out of every figure (input_removed), ` +
          `their verdicts stay in verdicts.jsonl`
        : "") +
      (this.occupied
        ? `; ${this.occupied} of them onto an id whose path held another trajectory (other content, its file gone): the ${this.superseded} verdict(s) of that content are superseded by the carried ones, not reused`
        : "") +
      (swapped.length
        ? `; ${swapped.length} of them from an id whose file is still there but holds other content now (${swappedWhy(swapped)}), e.g. ${eg(swapped)}: ` +
          `each id keeps the verdicts of the content its file holds now` +
          (this.swappedSuperseded ? ` (the ${this.swappedSuperseded} verdict(s) of an id's earlier content are superseded by the carried ones, not reused)` : "")
        : "")
    );
  }

  /** The old slots holding content code `code`, from the sorted index (binary search). */
  private *candidates(code: number): Generator<number> {
    const { slots, codes } = (this.index ??= this.buildIndex());
    let lo = 0;
    let hi = codes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (codes[mid] < code) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < codes.length && codes[k] === code; k++) yield slots[k];
  }

  private buildIndex(): { slots: Int32Array; codes: Int32Array } {
    // the codes the run was opened with: a trajectory this read met with other content is still found by its old one
    const codes = this.openCodes;
    const order: number[] = [];
    for (let s = 0; s < codes.length; s++) if (codes[s] !== -1) order.push(s);
    order.sort((a, b) => codes[a] - codes[b] || a - b);
    return { slots: Int32Array.from(order), codes: Int32Array.from(order, (s) => codes[s]) };
  }

  private there(file: string): boolean {
    let e = this.exists.get(file);
    if (e === undefined) {
      // a bounded memo (a resume over a million copies asks about every stored file once: no path string kept per trajectory)
      if (this.exists.size >= EXISTS_MEMO_MAX) this.exists.clear();
      this.exists.set(file, (e = fs.existsSync(file)));
    }
    return e;
  }

  /**
   * The current verdicts (latest per judge and repeat) of the stored ids whose input file is gone or may hold other
   * content now (`HeldContent.mayHaveChanged`: read again with other content, or its stamp changed): one read.
   */
  private async verdictsOfGone(): Promise<Map<string, Map<string, Verdict>>> {
    if (this.goneVerdicts) return this.goneVerdicts;
    const out = new Map<string, Map<string, Verdict>>();
    const file = path.join(this.store.dir, "verdicts.jsonl");
    const skip = journalSkips(file, NOT_VERDICT);
    // per stored slot: 0 not asked yet, 1 its input is gone, 2 it is there (or not a stored slot): no id string kept
    const gone = new Uint8Array(this.openSize);
    for await (const v of readJsonl<Verdict>(file, skip.bad, verdictRecordCheck(file), skip.end)) {
      const slot = this.store.idSlots.find(v.trajectory_id);
      if (slot === -1 || slot >= this.openSize) continue;
      if (gone[slot] === 0) {
        const src = this.store.trajectorySource(v.trajectory_id)?.replace(/:\d+$/, "");
        // a row of a multi-item file: its line read now (a row deleted or inserted above moves it: break54 #3)
        const byLine = src !== undefined && src !== "" && this.there(src) ? await this.held.lineHolds(slot, src, lineOf(this.store.trajectorySource(v.trajectory_id))) : undefined;
        gone[slot] = byLine !== undefined ? (byLine ? 2 : 1) : src !== undefined && src !== "" && (!this.there(src) || this.held.mayHaveChanged(slot, src)) ? 1 : 2;
      }
      if (gone[slot] !== 1) continue;
      // only verdicts on the content the id held when the run was opened (the one a move carries): a verdict this
      // invocation already made on the id's new content (a shifted line judged before the line it moved to is read)
      // must not hide it as the latest of its key
      if (v.content_sha256 !== undefined && this.store.hashes.pool.find(v.content_sha256) !== this.openCodes[slot]) continue;
      let m = out.get(v.trajectory_id);
      if (!m) out.set(v.trajectory_id, (m = new Map()));
      m.set(currentVerdictKey(v), v);
    }
    return (this.goneVerdicts = out);
  }
}

/** A stored verdict of a moved trajectory, under its new id and row: no request made now (module docstring). */
function movedVerdict(v: Verdict, t: TrajectoryIndexRow): Verdict {
  const out: Verdict = { ...v, trajectory_id: t.id, carried_from: v.trajectory_id, cost_usd: 0, usage: { prompt_tokens: 0, completion_tokens: 0 } };
  // the fields copied from the trajectory follow its row now (a renamed model folder can rename its agent model)
  for (const k of ["agent_model", "agent_family", "suite", "attack", "condition"] as const) {
    const now = t[k];
    if (typeof now === "string") out[k] = now;
  }
  return out;
}

/**
 * Why the ids of swapped moves hold other content now: folders swapped or renamed onto each other (the files differ),
 * or rows moved to other lines of one file (a chat-JSONL row deleted or inserted above them, ids `<file>:<line>`).
 */
function swappedWhy(ms: ReadonlyArray<{ fromFile: string; toFile: string }>): string {
  const inFile = ms.filter((m) => m.fromFile === m.toFile).length;
  if (inFile === ms.length) return "rows moved to other lines of their file: a row deleted or inserted above them";
  return inFile === 0 ? "folders swapped or renamed onto each other" : `folders swapped or renamed onto each other; ${inFile} rows moved to other lines of their file`;
}
