/**
 * The command line a report gives for "the same rows": `estimate --table` with every option that shaped the paper
 * table's rows (judge or committee and quorum, `--human`, `--where`, `--allow-low-coverage`, `--own-mix`).
 */
import type { ReportModel } from "./data.js";
import { typedClauses } from "../store/where.js";

/** A shell word: as is when it holds only safe characters, else single-quoted. */
const shellWord = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * The `estimate --table` command that writes the paper table's rows: every option that shaped them (the judge, or
 * the committee with its quorum and the judges it leaves out, from `paper_table.committee`, or, for a table of an
 * older shape, its name `committee (... quorum N)`; `--human` for the calibrated columns; each `--where` clause), so the command read
 * off a report made with `--human` or `--where` gives the same rows.
 * @returns the command line (unescaped: the caller escapes it for HTML).
 */
export function sameRowsCommand(m: Pick<ReportModel, "run" | "paper_table" | "human" | "where">): string {
  const t = m.paper_table!;
  const quorum = t.committee ? String(t.committee.quorum) : /^committee \((?:[^;]*; )?quorum (\d+)\)$/.exec(t.judge)?.[1];
  const out = (t.committee?.left_out ?? []).flatMap((j) => ["--exclude-judge", j]);
  const args = ["ipi-judge", "estimate", "--run", m.run, "--table", ...(quorum ? ["--committee", ...out, "--quorum", quorum] : t.judge.startsWith("committee") ? ["--committee"] : ["--judge", t.judge])];
  if (m.human) args.push("--human", m.human.file);
  for (const c of m.where ? typedClauses(m.where) : []) args.push("--where", c); // fields as typed (out50)
  if (t.allow_low_coverage) args.push("--allow-low-coverage");
  if (t.population && t.population.kind !== "like_for_like") args.push("--own-mix"); // own_mix (or "all", its name before)
  args.push("--csv", "table.csv", "--latex", "table.tex");
  return args.map(shellWord).join(" ");
}
