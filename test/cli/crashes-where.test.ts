/**
 * `crashesWhere` (src/cli/crashes-where.ts) on columns: the same crashes and verdicts per judge as the object path it
 * replaced (lead44: `readLeanRun`, `restrictRun`, a Set of "judge\0id\0repeat" strings), kept here as the reference.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { crashesWhere } from "../../src/cli/crashes-where.js";
import { readLeanRun } from "../../src/store/lean-read.js";
import { readErrors } from "../../src/store/records.js";
import { parseWhere, restrictRun, type WhereFilter } from "../../src/store/where.js";
import type { StoredCrashes } from "../../src/store/stored-crashes.js";
import { crashedItems } from "../../src/run/summary.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-crashwhere-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** lead44's object path, verbatim but for the names. */
async function objectCrashesWhere(runDir: string, where: WhereFilter, whole: ReadonlyMap<string, StoredCrashes>): Promise<Map<string, StoredCrashes>> {
  const out = new Map<string, StoredCrashes>();
  if (whole.size === 0) return out;
  const lean = await readLeanRun(runDir);
  const rows = restrictRun({ index: lean.index }, where).index;
  const key = (judge: string, id: string, repeat: unknown) => `${judge}\u0000${id}\u0000${typeof repeat === "number" ? repeat : 0}`;
  const judged = new Set<string>();
  const verdicts = new Map<string, number>();
  for (const v of lean.verdicts) {
    if (!whole.has(v.judge_id) || !rows.has(v.trajectory_id)) continue;
    judged.add(key(v.judge_id, v.trajectory_id, v.repeat));
    verdicts.set(v.judge_id, (verdicts.get(v.judge_id) ?? 0) + 1);
  }
  const crashed = new Map<string, Set<string>>();
  for (const e of await readErrors(runDir)) {
    if (e.kind !== "judge_crash" || typeof e.trajectory_id !== "string" || !rows.has(e.trajectory_id)) continue;
    for (const [judge] of crashedItems([e], true)) {
      if (!whole.has(judge) || judged.has(key(judge, e.trajectory_id, e.repeat))) continue;
      let s = crashed.get(judge);
      if (!s) crashed.set(judge, (s = new Set()));
      s.add(e.trajectory_id);
    }
  }
  for (const [judge, ids] of crashed) out.set(judge, { crashed: ids.size, verdicts: verdicts.get(judge) ?? 0 });
  return out;
}

describe("crashesWhere on columns", () => {
  it("the object path's counts: superseded crashes, other repeats, old records without judge_id, ids without a row, a later row moving an id", async () => {
    let seed = 9;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % k;
    const rows: string[] = [];
    const verdicts: string[] = [];
    const errors: string[] = [];
    for (let i = 0; i < 600; i++) {
      const id = `t/${i}${i % 41 === 0 ? "/ü🦀" : ""}`;
      rows.push(JSON.stringify({ id, content_sha256: "c", attacked: true, suite: `s${rnd(3)}`, attack: ["a", "b"][rnd(2)], agent_model: "m" }));
      for (const judge of ["j1", "j2", "j3"])
        for (const repeat of [0, 1]) {
          if (rnd(3) === 0) continue;
          verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", repeat, prompt_sha256: "p", status: "ok", label: "unaffected" }));
        }
      for (let k = rnd(3); k > 0; k--) {
        const judge = ["j1", "j2", "j3"][rnd(3)];
        const repeat = [0, 1, undefined, 2][rnd(4)];
        const old = rnd(5) === 0; // a record from before judge_id: the judge from its message
        errors.push(JSON.stringify({ path: "in.json", kind: "judge_crash", trajectory_id: id, ...(old ? {} : { judge_id: judge }), ...(repeat === undefined ? {} : { repeat }), message: `judge ${judge} failed on ${id}: boom` }));
      }
    }
    rows.push(JSON.stringify({ id: "t/3", content_sha256: "c", attacked: true, suite: "s9", attack: "a", agent_model: "m" })); // moved to another suite
    errors.push(JSON.stringify({ path: "in.json", kind: "judge_crash", trajectory_id: "no/row", judge_id: "j1", message: "x" }));
    errors.push(JSON.stringify({ path: "in.json", kind: "parse_error", trajectory_id: "t/5", message: "not a crash" }));
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "errors.jsonl"), errors.join("\n") + "\n");
    const whole = new Map<string, StoredCrashes>([["j1", { crashed: 9, verdicts: 9 }], ["j2", { crashed: 9, verdicts: 9 }]]);
    let nonEmpty = 0;
    for (const spec of ["suite=s0", "suite=s9", ["suite=s1,s2", "attack=b"], "attack=a"]) {
      const where = parseWhere(spec)!;
      const want = await objectCrashesWhere(dir, where, whole);
      const got = await crashesWhere(dir, where, whole);
      expect([...got].sort(), JSON.stringify(spec)).toEqual([...want].sort());
      if (want.size) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(2);
    expect(await crashesWhere(dir, parseWhere("suite=s0")!, new Map())).toEqual(new Map());
  });
});
