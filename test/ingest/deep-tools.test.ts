/**
 * A chat JSONL line whose tool schemas nest deeper than MAX_TOOLS_DEPTH is a schema error naming `tools` (red team 41:
 * parameters nested 100,000 deep were read, then overflowed the stack when the run prepared the trajectory, stopping
 * the whole run).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";
import { MAX_TOOLS_DEPTH } from "../../src/ingest/chat-jsonl.js";
import { TrajectoryPreparer } from "../../src/run/prepare.js";

describe("tools nested too deep", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-deep-tools-"));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("are one schema error naming the line; a schema nested up to the limit is read and prepared", async () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    // [ {type, function: {name, parameters: {p: <deep>}}} ]: 4 levels above the nested arrays
    const line = (id: string, n: number) => `{"id":"${id}","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"p":${deep(n)}}}}]}`;
    const f = path.join(tmp, "x.jsonl");
    fs.writeFileSync(f, [line("too-deep", 100_000), line("ok", MAX_TOOLS_DEPTH - 4)].join("\n") + "\n");
    const items: IngestItem[] = [];
    for await (const it of readTrajectories([f], { onWarning: () => {} })) items.push(it);
    expect(items.map((i) => i.kind)).toEqual(["error", "trajectory"]);
    const e = items[0].kind === "error" ? items[0].error : undefined;
    expect(e).toMatchObject({ kind: "schema", line: 1, trajectory_id: "too-deep" });
    expect(e?.message).toContain(`x.jsonl:1: tools: nested deeper than ${MAX_TOOLS_DEPTH} levels`);
    const ok = items[1].kind === "trajectory" ? items[1].trajectory : undefined;
    const p = await new TrajectoryPreparer([f], {}).prepare(ok!);
    expect(p.row.id).toBe("ok");
  });
});
