/**
 * The set-up several CLI tests share (session 47: test/cli/sample-where-default.test.ts repeated
 * test/cli/human-bucket-splits.test.ts's): a temporary folder, a `run` that calls the built CLI there and expects exit
 * 0, `readJsonl` of a file in it, and the 516 real AgentDojo runs labelled by the signature judge as run "r".
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { runCli } from "../helpers/cli.js";
import { CORPUS } from "../helpers/paths.js";

/** What {@link corpusRun} gives: the folder's CLI and file helpers, the judge's label per trajectory. */
export interface CorpusRun {
  /** The built CLI with `args`, in the folder; exit 0 expected (stderr shown otherwise). */
  run: (args: string[]) => ReturnType<typeof runCli>;
  /** A JSON Lines file of the folder (path relative to it), one value per non-blank line. */
  readJsonl: (file: string) => any[]; // records of any shape, as JSON.parse gives them
  /** The signature judge's label of every trajectory of run "r", by trajectory id. */
  judged: () => Map<string, string>;
}

/** The helpers over folder `tmp` (it must exist), without labelling anything. */
export function inFolder(tmp: string): Omit<CorpusRun, "judged"> {
  return {
    run: async (args) => {
      const r = await runCli(args, { cwd: tmp });
      expect(r.code, r.stderr).toBe(0);
      return r;
    },
    readJsonl: (f) =>
      fs
        .readFileSync(path.join(tmp, f), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

/** The 516 real AgentDojo runs labelled as run "r" in `tmp` (the signature judge, the default), with the helpers. */
export async function corpusRun(tmp: string): Promise<CorpusRun> {
  const h = inFolder(tmp);
  await h.run(["label", path.join(CORPUS, "runs"), "--run", "r"]);
  return { ...h, judged: () => new Map(h.readJsonl("labels/r/verdicts.jsonl").map((v) => [v.trajectory_id as string, v.label as string])) };
}
