/**
 * The crafted run of new user 47's finding 1 in small (shared by test/estimate/table-population.test.ts and
 * test/report/table-marks-html.test.ts): a model whose conditions ran different attacks, beside one that ran the
 * baseline alone.
 */
import fs from "node:fs";
import path from "node:path";

export type Run = { model: string; condition: string; attack?: string; user: string; full?: boolean };

/** A run folder of attacked runs (verdicts of judge `gpt`: full_compliance or unaffected) and one unattacked run per (model, condition). */
export function writeRun(tmp: string, name: string, runs: Run[]): string {
  const rows: string[] = [];
  const verdicts: string[] = [];
  const pairs = new Set<string>();
  runs.forEach((r, k) => {
    const id = `${name}/${k}`;
    pairs.add(`${r.model}\u0000${r.condition}`);
    rows.push(JSON.stringify({ id, agent_model: r.model, condition: r.condition, suite: "s", user_task_id: r.user, injection_task_id: "injection_task_0", attacked: true, attack: r.attack, reference: { utility: false }, content_sha256: "c" }));
    verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: r.full ? "full_compliance" : "unaffected", attacked: true, findings: [] }));
  });
  for (const p of pairs) {
    const [model, condition] = p.split("\u0000");
    const id = `${name}/${model}/${condition}/none`;
    // on user task u0, which every condition ran attacked: its utility is on the shared cells' user tasks (break52 #4b)
    rows.push(JSON.stringify({ id, agent_model: model, condition, suite: "s", user_task_id: "u0", attacked: false, reference: { utility: true }, content_sha256: "c" }));
    verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "gpt", judge_model: "m", repeat: 0, prompt_sha256: "p", status: "ok", label: "not_exposed", attacked: false, findings: [] }));
  }
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
  fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
  return dir;
}

// newuser47 #1 in small: model M's baseline ran attacks A and B on tasks u0..u3 (A succeeds on u0 and u1, B never);
// its defense D ran attack A on u0..u2 only (succeeds on u0). Over all runs the baseline reads 2/8 = 25% beside the
// defense's 1/3 = 33.3%: the defense looks harmful. On the 3 cells both ran (A x u0..u2): 2/3 = 66.7% against 1/3.
// Model G ran the baseline alone (A and B on u0..u3, nothing succeeds).
const users = ["u0", "u1", "u2", "u3"];
export const RUNS: Run[] = [
  ...users.map((user) => ({ model: "M", condition: "no_defense", attack: "A", user, full: user === "u0" || user === "u1" })),
  ...users.map((user) => ({ model: "M", condition: "no_defense", attack: "B", user })),
  ...users.slice(0, 3).map((user) => ({ model: "M", condition: "D", attack: "A", user, full: user === "u0" })),
  ...users.flatMap((user) => ["A", "B"].map((attack) => ({ model: "G", condition: "no_defense", attack, user }))),
];
