/**
 * A Batch API chunk's state lines leave out the conversation's system message (the rubric, one text per judge
 * config: kept once in `system-<sha>.txt`) and its user message (rendered again from the trajectory, checked by
 * hash) — issue 26, point 5: ~16 KB of a ~24 KB line. Lines written whole (before) still resume; a missing or
 * changed system file, or a trajectory that renders to another prompt, is refused with a message, never guessed.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { renderAgain } from "../../src/judges/conversation.js";
import { SYSTEM_TEMPLATE } from "../../src/rubric/prompt.js";
import { labelRun } from "../../src/run/label.js";
import { completion } from "../helpers/fake-openai.js";
import { startFakeBatch, jsonlLines as lines, userMessageOf as userOf, type FakeBatchServer } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

let tmp: string;
let fake: FakeBatchServer | undefined;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-compact-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/**
 * A fake whose first answer to each conversation is unparseable (a feedback turn follows: round-1 state lines hold
 * the assistant reply and the feedback after the two left out), then a verifying reply.
 */
async function start(): Promise<FakeBatchServer> {
  fake = await startFakeBatch((body) => ({ status: 200, body: completion(body.messages.length === 2 ? "not json at all" : benchReply(userOf(body))).body }));
  return fake;
}

/** Run `name` until every round-0 batch is held in progress, then stop (the state files stay). */
async function heldRun(f: FakeBatchServer, name: string) {
  const judge = () => createOpenAIJudge({ id: "gpt-batch", model: "gpt-4o-mini", family: "openai", base_url: f.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
  const run = (signal?: AbortSignal) => labelRun({ inputs: [SAMPLES], run: name, labelsDir: tmp, judges: [judge()], limit: 8, signal, batch: { pollMs: 2, maxRequests: 3 } });
  f.hold = true;
  const ac = new AbortController();
  let polls = 0;
  f.fault = (method, p) => {
    if (method === "GET" && /^\/batches\/batch_\d+$/.test(p) && ++polls === 6) setImmediate(() => ac.abort());
    return undefined;
  };
  await run(ac.signal);
  f.fault = undefined;
  f.hold = false;
  const bdir = path.join(tmp, name, "batches", "gpt-batch");
  const states = fs.readdirSync(bdir).filter((x) => x.endsWith(".state.jsonl")).map((x) => path.join(bdir, x));
  return { run, bdir, states };
}

describe("label --batch: compact state lines", () => {
  it("leave out the system and user messages (hash-checked), feedback rounds included; the run ends as before", async () => {
    const f = await start();
    const { run, bdir, states } = await heldRun(f, "compact");
    expect(states.length).toBeGreaterThan(0);
    const sysFile = path.join(bdir, `system-${sha(SYSTEM_TEMPLATE)}.txt`);
    expect(fs.readFileSync(sysFile, "utf8")).toBe(SYSTEM_TEMPLATE);
    // what was uploaded, by custom_id: the request lines' messages
    const sent = new Map<string, any>();
    for (const file of f.files.values()) for (const l of file.content.split("\n").filter(Boolean)) sent.set(JSON.parse(l).custom_id, JSON.parse(l).body.messages);
    let n = 0;
    for (const s of states)
      for (const l of lines(s)) {
        n++;
        expect(l.sys).toBe(sha(SYSTEM_TEMPLATE));
        expect(l.conv.messages).toEqual([]);
        const m = sent.get(l.custom_id);
        expect(m[0]).toEqual({ role: "system", content: SYSTEM_TEMPLATE });
        expect(l.usr).toBe(sha(m[1].content));
        expect(renderAgain(l.conv).messages[1]).toEqual(m[1]);
        expect(JSON.stringify(l)).not.toContain(SYSTEM_TEMPLATE.slice(0, 200));
      }
    expect(n).toBe(8);
    // to the end: every conversation took a feedback turn (a round-1 chunk of compact lines with 2 messages)
    await run();
    const verdicts = lines(path.join(tmp, "compact", "verdicts.jsonl"));
    expect(verdicts).toHaveLength(8);
    for (const v of verdicts) {
      expect(v.status).toBe("ok");
      expect(v.attempts).toBe(2);
    }
    // the round-1 requests carried the whole conversation: system, user (as first sent), reply, feedback
    const r1 = f.answered.filter((a) => a.body.messages.length === 4);
    expect(r1).toHaveLength(8);
    for (const a of r1) {
      expect(a.body.messages[0].content).toBe(SYSTEM_TEMPLATE);
      expect(a.body.messages[2]).toEqual({ role: "assistant", content: "not json at all" });
      const first = f.answered.find((b) => b.body.messages.length === 2 && b.body.messages[1].content === a.body.messages[1].content);
      expect(first).toBeDefined();
    }
  });

  it("state lines written whole (before) resume to the same end", async () => {
    const f = await start();
    const { run, states } = await heldRun(f, "whole");
    for (const s of states) {
      const ls = lines(s).map((l) => {
        const again = renderAgain(l.conv);
        l.conv.messages = [{ role: "system", content: SYSTEM_TEMPLATE }, again.messages[1], ...l.conv.messages];
        delete l.sys;
        delete l.usr;
        return l;
      });
      fs.writeFileSync(s, ls.map((l) => JSON.stringify(l) + "\n").join(""));
    }
    await run();
    const verdicts = lines(path.join(tmp, "whole", "verdicts.jsonl"));
    expect(verdicts).toHaveLength(8);
    for (const v of verdicts) expect([v.status, v.attempts]).toEqual(["ok", 2]);
  });

  for (const how of ["missing", "changed", "renders differently"] as const)
    it(`refused, naming the chunk, when the system file is ${how === "renders differently" ? "fine but the trajectory renders differently" : how}`, async () => {
      const f = await start();
      const name = `bad-${how.replace(/ /g, "-")}`;
      const { run, bdir, states } = await heldRun(f, name);
      const sysFile = path.join(bdir, `system-${sha(SYSTEM_TEMPLATE)}.txt`);
      if (how === "missing") fs.rmSync(sysFile);
      else if (how === "changed") fs.writeFileSync(sysFile, SYSTEM_TEMPLATE + " ");
      else
        for (const s of states) {
          const ls = lines(s);
          ls[0].usr = sha("another prompt");
          fs.writeFileSync(s, ls.map((l) => JSON.stringify(l) + "\n").join(""));
        }
      const expected = how === "missing" ? /system-[0-9a-f]{64}\.txt is missing/ : how === "changed" ? /does not hash to the SHA-256 its state lines name/ : /renders to another user message than the one sent/;
      await expect(run()).rejects.toThrow(expected);
      // nothing was stored from a chunk it could not read
      expect(lines(path.join(tmp, name, "verdicts.jsonl")).length).toBeLessThan(8);
    });
});
