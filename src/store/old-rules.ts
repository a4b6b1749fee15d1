/**
 * The figure commands' warning about verdicts verified under older rules (`../rubric/verify-rules.ts`): a run
 * labelled by an older build and read today mixes labels decided under two rule sets, and a figure reads them as one.
 * Every reader of a run's current verdicts (`./records.ts` `readVerdicts`, `./lean-read.ts`, `./columns.ts`) counts
 * those of an older version, per judge, and records one run-level note (`./skipped-lines.ts`, said once per command
 * with the other journal warnings; in `--json` warnings): how many, of which judges, and the fix: `label` again on the
 * run re-verifies an LLM judge's from what is stored, with no judge call; the signature judge's are judged again, offline,
 * under `--on-config-change rejudge` (its prompt hash holds the rules version, and a changed prompt is refused by default).
 * The verdicts are read as stored (the file is not rewritten by a reader).
 */
import path from "node:path";
import { noteRunLevel } from "./skipped-lines.js";
import { verifiedUnderOlderRules } from "../rubric/verify-rules.js";

/** Current verdicts verified under older rules, per judge, noted with {@link OlderRules.note}. */
export class OlderRules {
  private readonly byJudge = new Map<string, number>();
  /** Positions (a reader's own numbering) of the older verdicts seen, with their judge: for readers that drop superseded ones later. */
  private readonly at: number[] = [];
  private readonly atJudge: string[] = []; // parallel to `at` (a judge id string is shared, not copied)

  /** Count `v` when it is older (a field comparison); with `pos`, kept to be counted by {@link noteCurrent}. */
  see(v: { status?: unknown; verify_rules?: unknown; judge_id?: unknown }, pos?: number): void {
    if (!verifiedUnderOlderRules(v)) return;
    const judge = typeof v.judge_id === "string" ? v.judge_id : "?";
    if (pos === undefined) this.byJudge.set(judge, (this.byJudge.get(judge) ?? 0) + 1);
    else {
      this.at.push(pos);
      this.atJudge.push(judge);
    }
  }

  /**
   * Count one current verdict of `judgeId` that a reader found verified under older rules itself
   * (`verifiedUnderOlderRules` of ../rubric/verify-rules.ts), e.g. from a flag per verdict kept as a byte; a judge id
   * that is not a string counts as "?", as in {@link see}.
   */
  count(judgeId: unknown): void {
    const judge = typeof judgeId === "string" ? judgeId : "?";
    this.byJudge.set(judge, (this.byJudge.get(judge) ?? 0) + 1);
  }

  /** Record the note over the positions seen that are still current (`current(pos)`), plus those counted directly. */
  noteCurrent(runDir: string, current: (pos: number) => boolean): void {
    for (let i = 0; i < this.at.length; i++) if (current(this.at[i])) this.byJudge.set(this.atJudge[i], (this.byJudge.get(this.atJudge[i]) ?? 0) + 1);
    this.at.length = 0;
    this.atJudge.length = 0;
    this.note(runDir);
  }

  /** Record (or, with none counted, drop) the run's note. */
  note(runDir: string): void {
    noteRunLevel(olderRulesKey(runDir), olderRulesText(runDir, this.byJudge));
  }
}

const olderRulesKey = (runDir: string) => `older-rules\u0000${path.resolve(runDir)}`;

/** The warning text, or undefined when no verdict is older. */
export function olderRulesText(runDir: string, byJudge: ReadonlyMap<string, number>): string | undefined {
  const judges = [...byJudge].filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (judges.length === 0) return undefined;
  const n = judges.reduce((s, [, c]) => s + c, 0);
  const each = judges.map(([j, c]) => `judge ${JSON.stringify(j)}: ${c}`).join("; ");
  return (
    `${path.join(path.resolve(runDir), "verdicts.jsonl")}: ${n} current verdict${n === 1 ? " was" : "s were"} verified under older ` +
    `verification rules than this build's (${each}); their labels are read as stored and may differ from what today's rules give, so figures ` +
    `mix two rule sets. Run \`ipi-judge label\` on this run again (same inputs and judges): an LLM judge's are re-verified from their ` +
    `stored findings with no judge call (no cost); the built-in signature judge's prompt names the rules, so its verdicts are judged again ` +
    `offline, which label does with --on-config-change rejudge (a changed prompt is refused by default)`
  );
}
