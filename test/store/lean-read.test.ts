import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Interner, readLeanRun } from "../../src/store/lean-read.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-leanread-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("Interner: its cap is counted per field", () => {
  it("a field of unique values fills its own cap only: the other fields' repeated values stay shared", () => {
    const it_ = new Interner(3);
    for (let i = 0; i < 10; i++) it_.o({ duration: i }, "metadata"); // unique per record: fills metadata's cap
    for (let i = 0; i < 10; i++) it_.s(`id${i}`, "trajectory_id");
    const a = it_.o({ security: true }, "reference");
    expect(it_.o({ security: true }, "reference")).toBe(a);
    const s = it_.s(["gpt", "4o"].join("-"), "agent_model");
    expect(it_.s(["gpt", "4o"].join("-"), "agent_model")).toBe(s);
    // past its cap a field's new values are returned as they are, not kept
    const m = { duration: 99 };
    expect(it_.o(m, "metadata")).toBe(m);
    expect(it_.o({ duration: 99 }, "metadata")).not.toBe(m);
    // a value held is shared whatever field asks
    expect(it_.o({ duration: 0 }, "other")).toBe(it_.o({ duration: 0 }, "metadata"));
  });
});

describe("readLeanRun: verdicts share their fields past 20,000 unique index values", () => {
  it("a run whose rows each have a unique metadata and file_stamp still gives its verdicts one prototype per combination", async () => {
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    const rows: string[] = [];
    const verdicts: string[] = [];
    const n = 12_000; // 24,000 unique objects in the index: past the default cap of 20,000 had it been shared
    for (let i = 0; i < n; i++) {
      const id = `m/t${i}`;
      rows.push(JSON.stringify({ id, content_sha256: "c" + i, attacked: true, suite: "banking", agent_model: "gpt", metadata: { duration: i + 0.5 }, file_stamp: { size: i, mtime_ms: i } }));
      verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "j1", judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: "ok", label: i % 2 ? "unaffected" : "full_compliance", findings: [], usage: { prompt_tokens: 0, completion_tokens: 0 } }));
    }
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const { index, verdicts: vs } = await readLeanRun(dir);
    expect(index.size).toBe(n);
    expect(vs.length).toBe(n);
    expect(new Set(vs.map((v) => Object.getPrototypeOf(v))).size).toBe(2);
    expect(vs[n - 1].label).toBe("unaffected");
    expect(vs[n - 1].trajectory_id).toBe(`m/t${n - 1}`);
  });
});
