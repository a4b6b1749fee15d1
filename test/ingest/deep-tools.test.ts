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
import { DATA } from "../helpers/paths.js";

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

  it("Inspect: a sample whose model events' tool schemas or metadata nest too deep is one schema error naming the sample", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const log = JSON.parse(fs.readFileSync(path.join(DATA, "inspect", "tool-poisoning-log.json"), "utf8"));
    const ev = log.samples[0].events.find((e: { event: string; tools?: unknown[] }) => e.event === "model" && e.tools?.length);
    ev.tools[0].parameters = { type: "object", properties: { p: "__DEEP__" } };
    const a = path.join(tmp, "tools.json");
    fs.writeFileSync(a, JSON.stringify(log).replace('"__DEEP__"', deep));
    const log2 = JSON.parse(fs.readFileSync(path.join(DATA, "inspect", "tool-poisoning-log.json"), "utf8"));
    log2.samples[0].metadata.x = "__DEEP__";
    const b = path.join(tmp, "meta.json");
    fs.writeFileSync(b, JSON.stringify(log2).replace('"__DEEP__"', deep));
    const items: IngestItem[] = [];
    for await (const it of readTrajectories([a, b], { onWarning: () => {} })) items.push(it);
    const msgs = items.map((i) => (i.kind === "error" ? `${i.error.kind}: ${i.error.message}` : i.kind));
    expect(msgs).toEqual([
      expect.stringMatching(/^schema: .*tools\.json: samples\[0\] \(sample poisoned-1, epoch 1\): tools of the model events: nested deeper than 256 levels/),
      expect.stringMatching(/^schema: .*meta\.json: samples\[0\] \(sample poisoned-1, epoch 1\): metadata: nested deeper than 64 levels/),
    ]);
  });
});
