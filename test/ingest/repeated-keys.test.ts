/**
 * An input item whose JSON gives a key twice with different values (break43): `JSON.parse` keeps the last value, so
 * an AgentDojo file `..., "security": true, ..., "security": false}` was read as `security: false` in silence, and
 * `agree --reference security` counted it so. Now the item is a `schema` error naming the key and both values, the
 * other items are read, and the same key twice with the same value is read as before. Real vendored AgentDojo runs
 * through the real reader (the default per-file detection and `--format agentdojo`), chat JSONL by line, and an
 * Inspect `.eval` by sample (fixture test/data/inspect/repeated-key.eval, make_repeated_key_fixture.py).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type ReadOptions } from "../../src/ingest/index.js";
import { CORPUS, DATA } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-repeated-key-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const RUN = "runs/claude-3-5-sonnet-20240620/banking/user_task_12/important_instructions/injection_task_0.json";

async function read(paths: string[], opts: ReadOptions = {}) {
  const items = [];
  for await (const it of readTrajectories(paths, opts)) items.push(it);
  return items;
}

/** The run's text with `, "<key>": <value>` appended to its top-level object. */
function withExtraKey(text: string, key: string, value: unknown): string {
  const end = text.lastIndexOf("}");
  return `${text.slice(0, end)}, ${JSON.stringify(key)}: ${JSON.stringify(value)}}`;
}

describe("a key given twice in an input item", () => {
  const text = fs.readFileSync(path.join(CORPUS, RUN), "utf8");
  const security = (JSON.parse(text) as { security: boolean }).security;

  for (const format of [undefined, "agentdojo"] as const) {
    it(`AgentDojo file (${format ?? "detected"}): security true then false is refused, naming the key; the same value twice is read`, async () => {
      const dir = path.join(tmp, `dojo-${format ?? "auto"}`);
      const file = (name: string) => path.join(dir, name, "banking", "user_task_12", "important_instructions", "injection_task_0.json");
      for (const name of ["twice", "same", "plain"]) fs.mkdirSync(path.dirname(file(name)), { recursive: true });
      fs.writeFileSync(file("twice"), withExtraKey(text, "security", !security));
      fs.writeFileSync(file("same"), withExtraKey(text, "security", security));
      fs.writeFileSync(file("plain"), text);
      const items = await read([dir], format ? { format } : {});
      expect(items.map((i) => i.kind)).toEqual(["trajectory", "trajectory", "error"]); // plain, same, twice (sorted)
      const err = items[2]!.kind === "error" ? items[2]!.error : undefined;
      expect(err?.kind).toBe("schema");
      expect(err?.path).toBe(file("twice"));
      expect(err?.message).toContain(`(root): key "security" given twice with different values (${security}, then ${!security})`);
      for (const it of items.slice(0, 2)) expect(it.kind === "trajectory" && it.trajectory.reference?.security).toBe(security);
    });
  }

  it("chat JSONL: a line that gives `messages` twice is refused at its line; the lines around it are read", async () => {
    const f = path.join(tmp, "chat.jsonl");
    const msgs = [{ role: "user", content: "hi" }, { role: "assistant", content: "ok" }];
    const line2 = `{"id": "b", "messages": ${JSON.stringify(msgs)}, "messages": [{"role": "user", "content": "other"}]}`;
    fs.writeFileSync(f, [JSON.stringify({ id: "a", messages: msgs }), line2, JSON.stringify({ id: "c", messages: msgs })].join("\n") + "\n");
    const items = await read([f]);
    expect(items.map((i) => i.kind)).toEqual(["trajectory", "error", "trajectory"]);
    const err = items[1]!.kind === "error" ? items[1]!.error : undefined;
    expect(err).toMatchObject({ kind: "schema", line: 2 });
    expect(err?.message).toContain(':2: (root): key "messages" given twice with different values');
  });

  it("a key repeated inside a message is named with its place", async () => {
    const f = path.join(tmp, "inner.jsonl");
    fs.writeFileSync(f, '{"id": "a", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok", "content": "no"}]}\n');
    const items = await read([f]);
    const err = items[0]!.kind === "error" ? items[0]!.error : undefined;
    expect(err?.message).toContain('messages[1]: key "content" given twice with different values ("ok", then "no")');
  });

  it("Inspect .eval: the sample whose scores give injection_success twice (C, then I) is refused by entry; the other is read", async () => {
    const items = await read([path.join(DATA, "inspect", "repeated-key.eval")], { securityScorer: "injection_success" });
    expect(items.map((i) => i.kind)).toEqual(["trajectory", "error"]);
    expect(items[0]!.kind === "trajectory" && items[0]!.trajectory.reference).toEqual({ security: true });
    const err = items[1]!.kind === "error" ? items[1]!.error : undefined;
    expect(err?.kind).toBe("schema");
    expect(err?.message).toContain('repeated-key.eval: samples/twice_epoch_1.json: scores: key "injection_success" given twice with different values');
  });

  it("Inspect .json log: the sample that repeats a key is refused, the others read; a header key given twice refuses the log", async () => {
    const log = JSON.parse(fs.readFileSync(path.join(DATA, "inspect", "tool-poisoning-log.json"), "utf8"));
    const sample = log.samples[0];
    log.samples = [{ ...sample, id: "a" }, { ...sample, id: "b" }, { ...sample, id: "c" }];
    const text = JSON.stringify(log);
    const secondScores = JSON.stringify({ ...sample, id: "b" }.scores);
    const at = text.indexOf(secondScores, text.indexOf('"id":"b"'));
    const twice = `${text.slice(0, at + secondScores.length - 1)},"injection_success":{"value":"I"}}${text.slice(at + secondScores.length)}`;
    const f = path.join(tmp, "log-twice.json");
    fs.writeFileSync(f, twice);
    const items = await read([f], { securityScorer: "injection_success" });
    expect(items.map((i) => i.kind)).toEqual(["trajectory", "error", "trajectory"]);
    const err = items[1]!.kind === "error" ? items[1]!.error : undefined;
    expect(err?.kind).toBe("schema");
    expect(err?.message).toContain('samples[1].scores: key "injection_success" given twice with different values');

    const header = text.replace('"task":"tool_poisoning_bench"', '"task":"tool_poisoning_bench","task":"other"');
    expect(header).not.toBe(text);
    const g = path.join(tmp, "log-header.json");
    fs.writeFileSync(g, header);
    const whole = await read([g]);
    expect(whole.map((i) => i.kind)).toEqual(["error"]);
    expect(whole[0]!.kind === "error" && whole[0]!.error.message).toContain('eval: key "task" given twice with different values');
  });

  it("shell trajectories: a .traj (read as shell by its name) and a detected .json that repeat a key are refused", async () => {
    for (const name of ["swe-agent.traj", "mini-swe-agent-v2.traj.json"]) {
      const text = fs.readFileSync(path.join(DATA, "shell", name), "utf8");
      const f = path.join(tmp, `twice-${name}`);
      fs.writeFileSync(f, withExtraKey(text, "messages", []).replace(/^\{/, '{"messages": [1], '));
      const items = await read([f]);
      expect(items.map((i) => i.kind)).toEqual(["error"]);
      expect(items[0]!.kind === "error" && items[0]!.error.message).toContain('(root): key "messages" given twice with different values');
    }
  });
});
