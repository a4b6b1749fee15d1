/**
 * `label` on a run whose stored LLM verdicts were verified under older rules (`../rubric/verify-rules.ts`):
 * each is verified again from what its line stores, against its trajectory, with no judge call
 * (`../verdict/reverify.ts`), and the new record is appended (it supersedes the old line, which stays in
 * `verdicts.jsonl` for audit; the old label is in the new record's `reverified`).
 *
 * Cost (issue 26): the store counts older verdicts as it loads the journal (`VerdictLedger`: a field comparison per
 * line). With none, nothing here runs ({@link StoredReverifier.open} returns undefined) and the resume fast path is
 * as before. With some:
 * - `verdicts.jsonl` is read once more at the start (a line of today's rules or of another judge found by a byte search,
 *   not parsed), and the byte offset of the latest older line of each key of a judge this invocation runs is kept, per
 *   trajectory id (one small entry per older verdict, some 200 bytes; the lines themselves are not held);
 * - the resume fast path does not pass over a file whose trajectory has such a verdict ({@link wants}, called by
 *   `./fast-resume.ts`): the file is read and its trajectory prepared as for judging (recovered injected text,
 *   surfaces), so the check runs on the text the judge saw;
 * - the reading loop hands each prepared trajectory to {@link take}: its older verdicts are read back from their
 *   offsets, re-verified and stored.
 * Only verdicts of the judges this invocation runs (any repeat stored, not only those of its `--repeats`), made with
 * their current prompt and configuration on the content read now (others are judged again by `planRepeats`, or are another judge's: they stay older, counted at the end).
 * The signature judge's are never re-verified here: its prompt hash includes the rules version, so they are judged
 * again (offline) under `--on-config-change rejudge`. What it did is one sentence of the summary's warnings ({@link statement}).
 */
import fs from "node:fs";
import path from "node:path";
import type { Judge } from "../judges/judge.js";
import type { JudgeReply, Trajectory, Verdict } from "../types.js";
import { parseReply } from "../judges/parse.js";
import { OUTPUT_MODES, type OutputMode } from "../config/judges.js";
import { reverifyVerdict } from "../verdict/reverify.js";
import { verifiedUnderOlderRules, VERIFY_RULES_VERSION } from "../rubric/verify-rules.js";
import { DEFAULT_MIN_QUOTE_CHARS } from "../evidence/context.js";
import { isVerdictRecord } from "../store/records.js";
import { verdictProblem } from "../store/verdict-check.js";
import type { RunStore } from "../store/run-store.js";
import { removedRecord } from "../store/removed-ids.js";

/** Where a stored line is in `verdicts.jsonl`, and whose it is (judge and repeat; the trajectory is the map's key). */
interface LineAt {
  judge: string;
  repeat: number;
  offset: number;
  bytes: number;
}

/** What of the label run's state (`./label-core.ts` `LabelRunState`) the re-verifier reads. */
export interface ReverifyState {
  readonly store: RunStore;
  readonly configs: ReadonlyMap<string, { sha: string }>;
  readonly judgeCtx: { minQuoteChars?: number };
}


/** Re-verifies the older stored verdicts of one `label` invocation (module docstring). */
export class StoredReverifier {
  /** per trajectory id: its older lines, the latest per judge and repeat (any repeat stored, not only this invocation's) */
  private readonly lines = new Map<string, LineAt[]>();
  private reverified = 0;
  private readonly moved = new Map<string, number>();
  private readonly impossible = new Map<string, number>();
  private fd = -1;

  private constructor(
    private readonly rs: ReverifyState,
    private readonly judges: readonly Judge[],
    private readonly onChange: "refuse" | "rejudge" | "keep",
  ) {}

  /**
   * The re-verifier of this invocation, or undefined when the run holds no older verdict of a judge it can re-verify
   * (no work at all: the common case). Reads `verdicts.jsonl` once when it holds some.
   * @param onChange the invocation's `--on-config-change`: a verdict of another configuration is judged again under
   *   `rejudge` (not re-verified), and counted as not re-verifiable under `keep`.
   */
  static async open(rs: ReverifyState, judges: readonly Judge[], onChange: "refuse" | "rejudge" | "keep"): Promise<StoredReverifier | undefined> {
    if (rs.store.ledger.verifiedUnderOlderRules === 0) return undefined;
    const llm = judges.filter((j) => j.local !== true);
    if (llm.length === 0) return undefined;
    const r = new StoredReverifier(rs, llm, onChange);
    await r.findLines();
    return r.lines.size ? r : undefined;
  }

  /** The byte offset of the latest older line of each key of a judge run here (the ledger says which keys). */
  private async findLines(): Promise<void> {
    const file = this.rs.store.file("verdicts.jsonl");
    if (!fs.existsSync(file)) return;
    const ids = new Set(this.judges.map((j) => j.id));
    const ledger = this.rs.store.ledger;
    const current = Buffer.from(`"verify_rules":${VERIFY_RULES_VERSION}`);
    // a trajectory left out as input_removed is not read (its file is gone): its older lines are not this re-verifier's
    // (brk40: every later label said "0 re-verified, N remain" and read the journal again for them)
    const removed = removedRecord(this.rs.store.dir)?.ids;
    const ofJudges = this.judges.map((j) => Buffer.from(`"judge_id":${JSON.stringify(j.id)}`));
    let offset = 0;
    let rest: Buffer = Buffer.alloc(0);
    const onLine = (line: Buffer, at: number) => {
      // a line of today's rules, or of another judge (the signature judge's), is not parsed (byte searches)
      if (line.length === 0 || holdsNumber(line, current) || !ofJudges.some((b) => line.includes(b))) return;
      let v: Record<string, unknown>;
      try {
        v = JSON.parse(line.toString("utf8")) as Record<string, unknown>;
      } catch {
        return;
      }
      if (!isVerdictRecord(v) || !ids.has(v.judge_id as string) || !verifiedUnderOlderRules(v)) return;
      const id = v.trajectory_id as string;
      if (removed?.has(id)) return;
      const repeat = v.repeat as number;
      if (!ledger.olderRulesOf(id, v.judge_id as string, repeat)) return;
      const mine = this.lines.get(id) ?? [];
      const same = mine.findIndex((x) => x.judge === v.judge_id && x.repeat === repeat);
      const entry = { judge: v.judge_id as string, repeat, offset: at, bytes: line.length };
      if (same === -1) mine.push(entry);
      else mine[same] = entry; // a later line of the same key: the latest is the one the ledger holds
      this.lines.set(id, mine);
    };
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
      const buf = rest.length ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
        onLine(buf.subarray(start, nl), offset + start);
        start = nl + 1;
      }
      offset += start;
      rest = Buffer.from(buf.subarray(start));
    }
    if (rest.length) onLine(rest, offset);
  }

  /** Whether the trajectory has an older verdict this re-verifier would take (the fast path reads its file then). */
  wants(id: string): boolean {
    return this.lines.has(id);
  }

  /**
   * Re-verify and store the older verdicts of a trajectory just read and prepared (`t`, its content hash now
   * `content`): those made on that content with the judge's current prompt and configuration.
   */
  take(t: Trajectory, content: string): void {
    const { store, configs } = this.rs;
    const mine = this.lines.get(t.id);
    if (mine === undefined) return;
    this.lines.delete(t.id);
    for (const at of mine) {
      const j = this.judges.find((x) => x.id === at.judge)!;
      const r = at.repeat;
      const info = store.ledger.latestOf(t.id, j.id, r);
      // judged again by planRepeats (prompt, configuration or content changed), or superseded since: not this one's
      if (!info || !store.ledger.olderRulesOf(t.id, j.id, r) || info.prompt_sha256 !== j.promptSha256) continue;
      if (store.ledger.contentOf(info, t.id) !== content) continue;
      if (info.judge_config_sha256 !== configs.get(j.id)?.sha) {
        // judged again under --on-config-change rejudge (planRepeats); kept as it is under keep: its settings are not today's
        if (this.onChange === "keep") this.count(this.impossible, "made under another configuration of its judge (kept by --on-config-change keep)");
        continue;
      }
      const old = this.readAt(at);
      if (!old || old.trajectory_id !== t.id || old.judge_id !== j.id || old.repeat !== r) {
        this.count(this.impossible, "its stored line could not be read back");
        continue;
      }
      const minQuoteChars = this.rs.judgeCtx.minQuoteChars ?? numberOr(j.verdictConfig?.min_quote_chars, DEFAULT_MIN_QUOTE_CHARS);
      const res = reverifyVerdict(old, t, { minQuoteChars, parseReply: replyParser(j) });
      if ("impossible" in res) {
        this.count(this.impossible, res.impossible);
        continue;
      }
      store.addVerdict(res.verdict);
      this.reverified++;
      const was = labelOf(old);
      const now = labelOf(res.verdict);
      if (was !== now) this.count(this.moved, `${was} -> ${now}`);
    }
  }

  /** One stored line, parsed and checked as the store reads it; undefined when it is not a verdict any more. */
  private readAt(at: LineAt): Verdict | undefined {
    try {
      if (this.fd === -1) this.fd = fs.openSync(this.rs.store.file("verdicts.jsonl"), "r");
      const buf = Buffer.alloc(at.bytes);
      fs.readSync(this.fd, buf, 0, at.bytes, at.offset);
      const v = JSON.parse(buf.toString("utf8")) as Record<string, unknown>;
      return isVerdictRecord(v) && !verdictProblem(v)?.refused ? (v as unknown as Verdict) : undefined;
    } catch {
      return undefined;
    }
  }

  private count(m: Map<string, number>, what: string): void {
    m.set(what, (m.get(what) ?? 0) + 1);
  }

  /** Close the journal read back. */
  close(): void {
    if (this.fd !== -1) fs.closeSync(this.fd);
    this.fd = -1;
  }

  /**
   * What this invocation did, as one warning of the summary: verdicts re-verified and labels moved (old -> new,
   * counts), those that could not be (why, counts: left as stored, still older), and how many older verdicts remain.
   * @param remaining the run's older verdicts after this invocation (`VerdictLedger.verifiedUnderOlderRules`).
   */
  statement(runDir: string, remaining: number): string {
    this.close();
    const moved = [...this.moved].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`);
    const movedN = [...this.moved.values()].reduce((a, b) => a + b, 0);
    const impossibleN = [...this.impossible.values()].reduce((a, b) => a + b, 0);
    const parts = [
      `${path.join(runDir, "verdicts.jsonl")}: ${this.reverified} stored verdict(s) verified under older rules were re-verified under verification rules ${VERIFY_RULES_VERSION} with no judge call (no cost); ` +
        `${movedN} label(s) moved${moved.length ? ` (${moved.join(", ")})` : ""}; each new record keeps the old label in "reverified", the old line stays in the file`,
    ];
    if (impossibleN)
      parts.push(`${impossibleN} could not be re-verified and are left as stored, still marked older (${[...this.impossible].map(([k, n]) => `${k}: ${n}`).join("; ")})`);
    if (remaining) parts.push(`${remaining} current verdict(s) of the run remain verified under older rules (of judges not run here, on trajectories not read, or that could not be re-verified)`);
    return parts.join("; ");
  }
}

/**
 * The summary's warnings of a label invocation's re-verification ({@link StoredReverifier.statement}): none when it had
 * no re-verifier (no older verdict of its LLM judges when it opened).
 */
export function reverifyWarnings(r: StoredReverifier | undefined, store: RunStore): string[] {
  return r ? [r.statement(store.dir, store.ledger.verifiedUnderOlderRules)] : [];
}

/**
 * Whether `line` holds `key` (`"verify_rules":N`) as a whole number: the byte after it ends the number (`,`, `}`,
 * whitespace). A prefix alone is not enough: `"verify_rules":1` is also the start of `:10`..`:19` and of `:1.5`, the
 * last a version this build calls older, which the prefilter skipped unparsed (verify41).
 */
export function holdsNumber(line: Buffer, key: Buffer): boolean {
  for (let at = line.indexOf(key); at !== -1; at = line.indexOf(key, at + 1)) {
    const next = line[at + key.length];
    if (next === undefined || next === 0x2c || next === 0x7d || next === 0x20 || next === 0x09 || next === 0x0d || next === 0x0a) return true;
  }
  return false;
}

/** A verdict's label as the statement names it (`none (status)` without one). */
function labelOf(v: Pick<Verdict, "label" | "status">): string {
  return v.label ?? `none (${v.status})`;
}

/**
 * The judge's reply parser in its configured output mode (its `verdictConfig`, the configuration its verdict was made
 * under: `take` checks the hash), for the first decided reply's check; undefined when the mode is not known.
 */
function replyParser(j: Judge): ((raw: string) => JudgeReply | null) | undefined {
  const mode = j.verdictConfig?.output_mode;
  if (typeof mode !== "string" || !(OUTPUT_MODES as readonly string[]).includes(mode)) return undefined;
  return (raw) => {
    const p = parseReply(raw, mode as OutputMode);
    return p.ok ? p.reply : null;
  };
}

function numberOr(x: unknown, d: number): number {
  return typeof x === "number" && Number.isInteger(x) && x >= 1 ? x : d;
}
