import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCommittee, readCommitteeStrata } from "../../src/sample/index.js";
import { readLeanIndex } from "../../src/store/lean-read.js";
import { buildCommittee } from "../../src/verdict/vote.js";
import { readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-strata-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const LABELS = ["full_compliance", "partial_compliance", "unaffected", "not_exposed"];

describe("sample's committee strata read as columns (issue 26): the same rows, problems and notes as readCommittee", () => {
  it("fresh and stale files (changed votes, unknown ids, a missing line, a judge left out)", async () => {
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    let seed = 4;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 800; i++) {
      const id = `m/t${i}${i % 77 === 0 ? "/é" : ""}`;
      rows.push(JSON.stringify({ id, content_sha256: `c${i}`, attacked: true }));
      for (const judge of ["j1", "j2", "j3"]) {
        if (rnd(10) === 0) continue;
        verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: judge, judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: rnd(8) ? "ok" : "judge_error", label: LABELS[rnd(4)], findings: [] }));
      }
    }
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    const committee = buildCommittee(vs, [...index.keys()], { judgeIds: ["j1", "j2", "j3"] });
    const meta = { committee_judges: ["j1", "j2", "j3"], excluded_judges: [], quorum: 2 };
    const line = (c: object, m: object = meta) => JSON.stringify({ ...c, ...m });
    const files: Record<string, string[]> = {
      fresh: committee.map((c) => line(c)),
      stale: [...committee.slice(3).map((c, i) => line(i % 40 === 0 ? { ...c, votes: { ...c.votes, j1: "unaffected" }, unanimous: !c.unanimous } : c)), line({ ...committee[0], trajectory_id: "elsewhere" }), line(committee[7])],
      partial: committee.map((c) => line({ ...c, votes: { j1: c.votes.j1, j2: c.votes.j2 } }, { committee_judges: ["j1", "j2"], excluded_judges: ["j3"], quorum: 2 })),
    };
    const full = await readLeanIndex(dir, { content: true });
    const some = new Map([...full].filter((_, i) => i % 3 !== 0)); // a --where that keeps two thirds
    for (const [name, lines] of Object.entries(files)) {
      fs.writeFileSync(path.join(dir, "committee.jsonl"), lines.join("\n") + "\n");
      for (const idx of [full, some]) {
        const want = (await readCommittee(dir, { index: full }))!;
        const got = (await readCommitteeStrata(dir, idx))!;
        const rowsWanted = want.rows.filter((r) => idx.has(r.trajectory_id)).map((r) => ({ trajectory_id: r.trajectory_id, unanimous: r.unanimous, status: r.status }));
        expect(got.rows, name).toEqual(rowsWanted);
        expect({ stale: got.stale, notes: got.notes }, name).toEqual({ stale: want.stale, notes: want.notes });
        if (name === "stale") expect(got.stale.length).toBeGreaterThan(0);
      }
    }
    fs.writeFileSync(path.join(dir, "committee.jsonl"), files.fresh.join("\n") + "\n{oops\n");
    await expect(readCommitteeStrata(dir, full)).rejects.toThrow(/line 801 are not JSON/);
  });
});
