/**
 * A reply that names another model than the request asked for (red team 40, src/providers/served-model.ts): the
 * verdicts, costs and families named the judge's configured model with no word when a router's fallback or a server
 * with another model loaded answered. Now each such verdict notes it and the judge is flagged once, online and on the
 * Batch path; a snapshot of the asked model (`gpt-4o` -> `gpt-4o-2024-08-06`) or a provider prefix is the same model.
 * Real `openai` client against loopback servers (test/helpers).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchReply } from "../../bench/server.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { labelRun } from "../../src/run/label.js";
import { sameModel, servedModelNote, SERVED_MODEL_NOTE } from "../../src/providers/served-model.js";
import { completion, startFakeOpenAI } from "../helpers/fake-openai.js";
import { jsonlLines, startFakeBatch, userMessageOf } from "../helpers/fake-batch.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-served-model-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("sameModel", () => {
  it("a snapshot, a tag or a provider prefix of the asked model is it; another size or model is not", () => {
    for (const [a, s] of [
      ["gpt-4o-mini", "gpt-4o-mini-2024-07-18"],
      ["claude-3-5-sonnet", "claude-3-5-sonnet-20240620"],
      ["openai/gpt-4o", "gpt-4o-2024-08-06"],
      ["openai/gpt-4o", "openai/gpt-4o"],
      ["gemini-2.0-flash", "models/gemini-2.0-flash"],
      ["llama3.1", "llama3.1:latest"],
      ["GPT-4o", "gpt-4o"],
      ["gpt-4o-2024-08-06", "gpt-4o"],
      // brk40: Google's three-digit snapshots, Bedrock's and Vertex's version forms
      ["gemini-1.5-pro", "gemini-1.5-pro-002"],
      ["gemini-1.5-flash", "models/gemini-1.5-flash-001"],
      ["anthropic.claude-3-5-sonnet-20240620", "anthropic.claude-3-5-sonnet-20240620-v1:0"],
      ["claude-3-5-sonnet", "claude-3-5-sonnet@20240620"],
    ])
      expect(sameModel(a, s), `${a} / ${s}`).toBe(true);
    for (const [a, s] of [
      ["gpt-4o", "gpt-4o-mini-2024-07-18"],
      ["anthropic/claude-3.5-sonnet", "openai/gpt-4o"],
      ["gpt-4o-mini", "fake-model"],
      ["llama3.1:70b", "llama3.1:8b"],
      // brk40: an Ollama size tag, and a model's second version, are other models
      ["llama3.1", "llama3.1:70b"],
      ["llama3.1", "llama3.1:8b-instruct-q4_0"],
      ["claude-3-5-sonnet", "claude-3-5-sonnet-v2"],
    ])
      expect(sameModel(a, s), `${a} / ${s}`).toBe(false);
    expect(servedModelNote("gpt-4o", { model: "gpt-4o-mini" })).toBe(`${SERVED_MODEL_NOTE}: "gpt-4o-mini" answered a request for "gpt-4o"`);
    expect(servedModelNote("gpt-4o", {})).toBeUndefined();
  });
});

describe("replies naming another model", () => {
  it("online: each verdict notes it, the judge is flagged once; a server answering as asked is not", async () => {
    const fake = await startFakeOpenAI((req) => {
      const r = completion(benchReply(userMessageOf(req.body)));
      return { ...r, body: { ...(r.body as object), model: "llama-3-8b-instruct" } };
    });
    try {
      const judge = createOpenAIJudge({ id: "j", model: "gpt-4o-mini", family: "openai", base_url: fake.url, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
      const res = await labelRun({ inputs: [SAMPLES], run: "online", labelsDir: tmp, judges: [judge], limit: 3 });
      const vs = jsonlLines(path.join(tmp, "online", "verdicts.jsonl"));
      expect(vs).toHaveLength(3);
      for (const v of vs) expect(v.provider_notes).toContain(`${SERVED_MODEL_NOTE}: "llama-3-8b-instruct" answered a request for "gpt-4o-mini"`);
      expect(res.adaptations.j.filter((a) => a.includes(SERVED_MODEL_NOTE))).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });
  it("the Batch path alike (the result line's model is kept when read)", async () => {
    const fake = await startFakeBatch((req) => ({ status: 200, body: { ...(completion(benchReply(userMessageOf(req))).body as object), model: "gpt-3.5-turbo" } }));
    try {
      const judge = createOpenAIJudge({ id: "b", model: "gpt-4o-mini", family: "openai", base_url: fake.url, batch: true, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
      const res = await labelRun({ inputs: [SAMPLES], run: "batch", labelsDir: tmp, judges: [judge], limit: 3, batch: { pollMs: 2 } });
      const vs = jsonlLines(path.join(tmp, "batch", "verdicts.jsonl"));
      expect(vs).toHaveLength(3);
      for (const v of vs) expect(v.provider_notes).toContain(`${SERVED_MODEL_NOTE}: "gpt-3.5-turbo" answered a request for "gpt-4o-mini"`);
      expect(res.adaptations.b.filter((a) => a.includes(SERVED_MODEL_NOTE))).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });
  it("the fake servers answer as the model asked: no note", async () => {
    const fake = await startFakeOpenAI((req) => completion(benchReply(userMessageOf(req.body))));
    try {
      const judge = createOpenAIJudge({ id: "k", model: "gpt-4o-mini", family: "openai", base_url: fake.url, max_tokens: 1000 }, { retries: 2, minQuoteChars: 12 });
      await labelRun({ inputs: [SAMPLES], run: "same", labelsDir: tmp, judges: [judge], limit: 2 });
      for (const v of jsonlLines(path.join(tmp, "same", "verdicts.jsonl"))) expect(v.provider_notes ?? []).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});
