/**
 * A run's judge crashes as its last label run counted them (`summary.json`, `judges[].judge_crashes`: trajectories
 * without the judge's verdict because it crashed on them, current errors.jsonl `judge_crash` errors), beside the
 * verdicts it has (`judges[].health.verdicts`): what the commands that read the stored run (agree, committee, report,
 * estimate, compare) weigh as `label` weighs its invocation's crashes (../verdict/broken-judge.ts). Whole-run figures
 * (the file holds counts, not the crashed trajectories): a command given `--where` counts them again over the rows it
 * selects (`../cli/crashes-where.ts`).
 */
import fs from "node:fs";
import path from "node:path";

const isCount = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;

/** One judge's stored crashes and verdicts (every repeat). */
export interface StoredCrashes {
  crashed: number;
  verdicts: number;
}

/**
 * Per judge with at least one stored crash: its crashes and its verdicts, from `<runDir>/summary.json`. Empty when
 * the file is missing or unreadable, or no judge crashed (nothing is guessed).
 */
export function storedJudgeCrashes(runDir: string): Map<string, StoredCrashes> {
  const out = new Map<string, StoredCrashes>();
  let s: unknown;
  try {
    s = JSON.parse(fs.readFileSync(path.join(runDir, "summary.json"), "utf8"));
  } catch {
    return out;
  }
  const judges = (s as { judges?: unknown })?.judges;
  if (!Array.isArray(judges)) return out;
  for (const j of judges) {
    const id = j?.judge_id;
    const crashed = j?.judge_crashes;
    // counts: a non-integer or negative figure (a hand-edited summary) is none, not a share of 1.5 crashes (task s40)
    if (typeof id !== "string" || !isCount(crashed) || crashed <= 0) continue;
    const verdicts = isCount(j?.health?.verdicts) ? j.health.verdicts : 0;
    out.set(id, { crashed, verdicts });
  }
  return out;
}
