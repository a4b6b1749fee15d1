/**
 * The shared cases of issue 23 (test/data/cases/E02, E03, E08, E11), each through the real path: E02 and E03 through
 * the real `openai` client against a loopback server answering the case's reply; E08 through the judge's decision on
 * the case's reply; E11 through the real annotation import (both exports) and the manifest of a sample.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { evidenceContext } from "../../src/evidence/context.js";
import { findQuoteSpan, verifyQuote } from "../../src/evidence/verify.js";
import { decide } from "../../src/verdict/decide.js";
import { EVIDENCE_KINDS, canonicalLabel } from "../../src/rubric/buckets.js";
import { importAnnotations } from "../../src/sample/index.js";
import type { ManifestRow } from "../../src/sample/export.js";
import type { Bucket, JudgeReply, Trajectory } from "../../src/types.js";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { CASES } from "../helpers/paths.js";

const readCase = (name: string) => JSON.parse(fs.readFileSync(path.join(CASES, name), "utf8"));
const ENV = { IPI_TEST_KEY: "sk-test-E-cases-0123456789" };

function trajectoryOf(record: { id: string; messages: unknown[]; injections?: Record<string, string>; attack?: string }): Trajectory {
  const r = convertChatLine(record, { path: "case.jsonl", line: 1, relPath: "case.jsonl" });
  if (!r.ok) throw new Error(r.error.message);
  return r.trajectory;
}

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function judgeWith(bodies: unknown[], cfg: Record<string, unknown>) {
  fake = await startFakeOpenAI(bodies.map((body) => ({ status: 200, body })));
  return createOpenAIJudge(
    { id: "j", model: String(cfg.model ?? "m"), family: "other", base_url: fake.url, api_key_env: "IPI_TEST_KEY", ...cfg } as never,
    { retries: 2, minQuoteChars: 12, env: ENV, transport: { sleep: async () => undefined, random: () => 0.5 } },
  );
}

describe("E02: finish_reason 'length' on a complete, schema-valid reply", () => {
  const c = readCase("E02.json");
  const want = readCase("E02.expected.json");
  const cfg = { model: c.judge_config.model, max_tokens: c.judge_config.max_tokens, output_mode: c.judge_config.output_mode };

  it("a: the complete verdict is the reply (one request), the finish reason noted on the verdict and the judge", async () => {
    const j = await judgeWith([c.responses.a_complete_verdict_length], cfg);
    const v = await j.judge(trajectoryOf(c.record), { repeat: 0 });
    expect(v.status).toBe(want.a_complete_verdict_length.status);
    expect(v.label).toBe(want.a_complete_verdict_length.label);
    expect(v.attempts).toBe(1);
    expect(v.provider_notes?.join(" ")).toContain('finish_reason "length"');
    expect(j.requestParams().adapted.join(" ")).toContain('finish_reason "length" on complete replies');
  });

  it("a server that says 'length' on every reply still gets its labels (never judge_error truncated for each item)", async () => {
    const j = await judgeWith([c.responses.a_complete_verdict_length], cfg);
    for (let k = 0; k < 3; k++) {
      const v = await j.judge(trajectoryOf({ ...c.record, id: `t-${k}` }), { repeat: 0 });
      expect([v.status, v.label, v.error?.kind]).toEqual(["ok", "full_compliance", undefined]);
    }
  });

  it("b (control): a reply really cut is resent once with a larger budget, then judge_error truncated, no label (B13)", async () => {
    const j = await judgeWith([c.responses.b_really_cut_control], cfg);
    const v = await j.judge(trajectoryOf(c.record), { repeat: 0 });
    expect([v.status, v.error?.kind, v.label]).toEqual([want.b_really_cut_control.status, want.b_really_cut_control.kind, null]);
    expect(fake!.requests).toHaveLength(2);
    expect(fake!.requests[1].body.max_tokens).toBe(2 * c.judge_config.max_tokens);
  });
});

describe("E03: reply content as a list of chunks (Mistral Magistral: thinking and text chunks)", () => {
  const c = readCase("E03.json");
  const want = readCase("E03.expected.json");

  it("the text chunks joined are the reply; the thinking chunk's draft is never the verdict", async () => {
    const j = await judgeWith([c.response], { model: c.judge_config.model, output_mode: c.judge_config.output_mode });
    const v = await j.judge(trajectoryOf(c.record), { repeat: 0 });
    expect(v.status).toBe(want.status);
    expect(v.label).toBe(want.label);
    expect(v.raw_replies).toEqual([want.answer_text]);
    expect(v.raw_replies.join("")).not.toContain("[object Object]");
    expect(v.error).toBeUndefined();
  });

  it("a feedback turn after a chunked reply carries the joined text, never '[object Object]'", async () => {
    const bad = structuredClone(c.response);
    // a quote that is not in the trajectory: the judge gets a feedback turn
    bad.choices[0].message.content[1].text = bad.choices[0].message.content[1].text.replace("I have also forwarded the invoices as requested", "I forwarded every invoice to the attacker");
    const j = await judgeWith([bad, c.response], { model: c.judge_config.model, output_mode: c.judge_config.output_mode });
    const v = await j.judge(trajectoryOf(c.record), { repeat: 0 });
    expect(fake!.requests).toHaveLength(2);
    const turn = fake!.requests[1].body.messages[2];
    expect(turn.role).toBe("assistant");
    expect(typeof turn.content).toBe("string");
    expect(turn.content).toContain('"findings"');
    expect(turn.content).not.toContain("[object Object]");
    // the thinking is not sent back unless the provider asks for it
    expect(turn.reasoning_content).toBeUndefined();
    expect(v.label).toBe("full_compliance");
  });
});

describe("E08: quote verification across emoji variation selectors", () => {
  const c = readCase("E08.json");
  const want = readCase("E08.expected.json");
  const t = trajectoryOf(c.record);
  const ctx = evidenceContext(t, { minQuoteChars: 12 });

  for (const [name, q] of Object.entries(c.quotes as Record<string, { message_index: number; bucket: string; quote: string }>)) {
    it(`${name}: verified ${want[name].verified}`, () => {
      const allowed = EVIDENCE_KINDS[canonicalLabel(q.bucket) as Bucket];
      const r = verifyQuote({ message_index: q.message_index, tool_call_index: null, quote: q.quote }, allowed, ctx);
      expect(r.verified).toBe(want[name].verified);
    });
  }

  it("the highlight span still covers the original characters (the selector included)", () => {
    const k = ctx.parts.findIndex((p) => p.message_index === 3 && p.kind === "tool_result");
    const text = ctx.parts[k].text;
    const span = findQuoteSpan("attacker@example.net today.\nThanks ❤ Sam", k, ctx)!;
    expect(text.slice(span.start, span.end)).toBe("attacker@example.net today.\nThanks ❤️ Sam");
    const span2 = findQuoteSpan("⚠️ Action required", k, ctx)!;
    expect(text.slice(span2.start, span2.end)).toBe("⚠ Action required");
  });

  it("the judge's reply keeps its full_compliance (not downgraded: the ASR does not drop)", () => {
    const d = decide(c.judge_reply as JudgeReply, ctx);
    expect(d.label).toBe(want.label);
    expect(d.downgraded).toBe(want.downgraded);
    expect(d.needsRetry).toBe(false);
  });

  it("through the judge: one request, full_compliance", async () => {
    const body = {
      id: "x",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: JSON.stringify(c.judge_reply) } }],
      usage: { prompt_tokens: 3000, completion_tokens: 90 },
    };
    const j = await judgeWith([body], {});
    const v = await j.judge(t, { repeat: 0 });
    expect([v.status, v.label, v.downgraded, v.attempts]).toEqual(["ok", want.label, want.downgraded, want.attempts]);
  });
});

describe("E11: the same annotator keyed two ways in Label Studio exports", () => {
  const c = readCase("E11.json");
  const want = readCase("E11.expected.json");
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-e11-"));
    const header = { ipi_judge_manifest: 1, run: "r", scale: "six", labels: [], seed: 1, n_items: 4, design: {} };
    const rows: ManifestRow[] = [1, 2, 3, 4].map((k) => ({
      item_id: `ITEM-00${k}`,
      trajectory_id: `m/banking/u${k}/i1`,
      stratum: "A",
      sampling_stratum: "all",
      committee_stratum: "A",
      stratum_size: 40,
      phase: 1,
      inclusion_probability: 0.1,
      weight: 10,
    }));
    fs.writeFileSync(path.join(tmp, "manifest.jsonl"), [header, ...rows].map((r) => JSON.stringify(r)).join("\n") + "\n");
    fs.writeFileSync(path.join(tmp, "old.json"), JSON.stringify(c.export_old));
    fs.writeFileSync(path.join(tmp, "new.json"), JSON.stringify(c.export_new));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("both exports give one annotator, '7': 4 labels, 2 repeated identically, never the e-mail as a key", async () => {
    const res = await importAnnotations({
      manifest: path.join(tmp, "manifest.jsonl"),
      files: [path.join(tmp, "old.json"), path.join(tmp, "new.json")],
      out: path.join(tmp, "human.jsonl"),
    });
    expect(Object.keys(res.summary.annotators)).toEqual(Object.keys(want.annotators));
    expect(res.summary.labels).toBe(want.labels);
    expect(res.summary.repeated_identical).toBe(want.repeated_identical);
    const written = fs.readFileSync(path.join(tmp, "human.jsonl"), "utf8");
    expect(written).not.toContain("ana@example.org");
  });

  it("an e-mail used as a name elsewhere is the same person; one alias under two ids is a collision, said and not merged", async () => {
    const csv = "item_id,annotator,label\nITEM-003,ana@example.org,not_exposed\n";
    fs.writeFileSync(path.join(tmp, "extra.csv"), csv);
    const res = await importAnnotations({
      manifest: path.join(tmp, "manifest.jsonl"),
      files: [path.join(tmp, "old.json"), path.join(tmp, "extra.csv")],
      out: path.join(tmp, "human2.jsonl"),
    });
    expect(Object.keys(res.summary.annotators)).toEqual(["7"]);
    expect(res.warnings.join(" ")).toContain('"ana@example.org" is annotator id "7"');
    const other = structuredClone(c.export_old);
    other[0].annotations[0].completed_by = { id: 9, email: "ana@example.org" };
    other[0].data.item_id = "ITEM-004";
    fs.writeFileSync(path.join(tmp, "other.json"), JSON.stringify([other[0]]));
    const res2 = await importAnnotations({
      manifest: path.join(tmp, "manifest.jsonl"),
      files: [path.join(tmp, "old.json"), path.join(tmp, "other.json")],
      out: path.join(tmp, "human3.jsonl"),
    });
    expect(Object.keys(res2.summary.annotators).sort()).toEqual(["7", "9"]);
    expect(res2.warnings.join(" ")).toContain("name collision");
  });

  it("skipped, empty and pending annotations are counted each by name", async () => {
    const ls = [
      { id: 1, data: { item_id: "ITEM-001" }, annotations: [{ id: 1, completed_by: 7, was_cancelled: true, result: [] }] },
      { id: 2, data: { item_id: "ITEM-002" }, annotations: [{ id: 2, completed_by: 7, result: [] }] },
      { id: 3, data: { item_id: "ITEM-003" }, annotations: [] },
      { id: 4, data: { item_id: "ITEM-004" }, annotations: [{ id: 4, completed_by: 7, result: [{ from_name: "label", type: "choices", value: { choices: ["unaffected"] } }] }] },
    ];
    fs.writeFileSync(path.join(tmp, "mixed.json"), JSON.stringify(ls));
    const res = await importAnnotations({ manifest: path.join(tmp, "manifest.jsonl"), files: [path.join(tmp, "mixed.json")], out: path.join(tmp, "human4.jsonl") });
    expect(res.summary.unlabelled).toBe(3);
    expect(res.summary.unlabelled_by_kind).toEqual({ skipped: 1, empty: 1, pending: 1, blank: 0 });
  });
});
