import fs from "node:fs";
import path from "node:path";
import { readTrajectories } from "../../src/ingest/index.js";
import { indexRow } from "../../src/run/label.js";
import type { Trajectory } from "../../src/types.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";

/** A minimal run-index row for population tests (content hash derived from the id unless given). */
export function row(id: string, extra: Partial<TrajectoryIndexRow> = {}): TrajectoryIndexRow {
  return {
    id,
    source: { format: "chat-jsonl", path: "x.jsonl", line: 1 },
    attacked: true,
    n_messages: 2,
    content_sha256: `sha-${id}`,
    ...extra,
  };
}

/** The run-index row `ipi-judge label` writes for a trajectory (the fields sampling reads). */
export const indexRowOf = (t: Trajectory): TrajectoryIndexRow => indexRow(t);

/** Read trajectories from paths (files or folders). */
export async function readAll(paths: string[]): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for await (const it of readTrajectories(paths)) if (it.kind === "trajectory") out.push(it.trajectory);
  return out;
}

/** Make a run folder with `trajectories.jsonl` for these trajectories (and `committee.jsonl` when given). */
export function writeRun(runDir: string, ts: readonly Trajectory[], committee?: readonly object[]): TrajectoryIndexRow[] {
  fs.mkdirSync(runDir, { recursive: true });
  const rows = ts.map(indexRowOf);
  fs.writeFileSync(path.join(runDir, "trajectories.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  if (committee) fs.writeFileSync(path.join(runDir, "committee.jsonl"), committee.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return rows;
}

/** A committee verdict (DESIGN section 3) from votes. */
export function committeeRow(trajectory_id: string, votes: Record<string, string | null>): object {
  const vals = Object.values(votes).filter((v): v is string => v !== null);
  const unanimous = vals.length === Object.keys(votes).length && new Set(vals).size === 1;
  const label = unanimous ? vals[0] : null;
  return {
    trajectory_id,
    votes,
    label,
    compromised: label === null ? null : label === "full_compliance" || label === "partial_compliance",
    unanimous,
    status: unanimous ? "ok" : "disputed",
  };
}

/** Every file of a folder, name -> contents. */
export function readDir(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), "utf8")]),
  );
}
