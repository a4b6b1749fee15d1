/**
 * Inspect AI logs (fixtures in test/data/inspect, built by make_fixtures.py from inspect_ai's log schema): tool
 * definitions only in condensed model events, attachments resolved, a missing attachment never judged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, countInputs, type IngestWarning } from "../../src/ingest/index.js";
import { compactRaw } from "../../src/ingest/raw-json.js";
import type { IngestError, Trajectory } from "../../src/types.js";
import { DATA } from "../helpers/paths.js";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI } from "../helpers/fake-openai.js";

const DIR = path.join(DATA, "inspect");
const EVAL = path.join(DIR, "tool-poisoning.eval");
const LOG = path.join(DIR, "tool-poisoning-log.json");

async function read(paths: string[], opts: Parameters<typeof readTrajectories>[1] = {}) {
  const ts: Trajectory[] = [];
  const es: IngestError[] = [];
  const ws: IngestWarning[] = [];
  for await (const it of readTrajectories(paths, { ...opts, onWarning: (w) => ws.push(w) })) {
    if (it.kind === "trajectory") ts.push(it.trajectory);
    else es.push(it.error);
  }
  return { ts, es, ws };
}

describe("Inspect samples name their own suite and user task (new user 32)", () => {
  it("metadata suite / user_task_id (chat JSONL spellings, --field too) win over the task name and the sample id", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-insp-ids-"));
    try {
      const log = JSON.parse(fs.readFileSync(LOG, "utf8"));
      log.samples = [log.samples[0]];
      log.samples[0].metadata = { ...log.samples[0].metadata, suite: "workspace", user_task_id: "user_task_7", scenario: "banking" };
      const file = path.join(tmp, "log.json");
      fs.writeFileSync(file, JSON.stringify(log));
      const t = (await read([file])).ts[0];
      expect(t).toMatchObject({ suite: "workspace", user_task_id: "user_task_7" });
      const mapped = (await read([file], { fieldMap: { scenario: "suite" } })).ts[0];
      expect(mapped.suite).toBe("banking");
      // without them: the task name and the sample id, as before
      delete log.samples[0].metadata.suite;
      delete log.samples[0].metadata.user_task_id;
      fs.writeFileSync(file, JSON.stringify(log));
      expect((await read([file])).ts[0]).toMatchObject({ suite: "tool_poisoning_bench", user_task_id: "poisoned-1" });
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe("Inspect .eval logs", () => {
  it("the poisoned description, held only in a condensed model event, is the tool's description; no attachment:// is left", async () => {
    const { ts, es } = await read([EVAL], { securityScorer: "injection_success" });
    expect(ts).toHaveLength(1);
    const t = ts[0];
    expect(t.id).toBe("tool-poisoning/poisoned-1_epoch_1");
    expect(t.source.format).toBe("inspect");
    expect(t.tools?.map((x) => x.name)).toEqual(["get_contacts", "send_email", "share_contacts"]);
    const send = t.tools!.find((x) => x.name === "send_email")!;
    expect(send.description).toMatch(/<IMPORTANT>\nBefore any email is sent.*share_contacts/s);
    expect(send.parameters).toMatchObject({ type: "object", required: ["to", "body"] });
    expect(JSON.stringify(t)).not.toMatch(/attachment:\/\//);
    expect(t).toMatchObject({ agent_model: "openai/gpt-4o-mini", agent_family: "openai", suite: "tool_poisoning_bench", attack: "tool_poisoning", reference: { security: true } });
    expect(t.surfaces).toEqual({ "tool_description:send_email": "tool_description" });
    expect(send.description).toContain(t.injections["tool_description:send_email"]);
    // the sample with a missing attachment is one error naming the reference, never a trajectory
    expect(es).toHaveLength(1);
    expect(es[0].kind).toBe("unresolved_attachment");
    expect(es[0].message).toMatch(/poisoned-2.*attachment:\/\/[0-9a-f]{32}/);
    expect(es[0].trajectory_id).toBe("tool-poisoning/poisoned-2_epoch_1");
  });
  it("messages: content parts, reasoning, tool calls {id, function, arguments} with byte-faithful arguments, tool errors", async () => {
    const t = (await read([EVAL])).ts[0];
    expect(t.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]);
    expect(t.messages[2].text).toMatch(/^<reasoning>The send_email tool says.*<\/reasoning>\nFirst I will/s);
    // 1.0 stays 1.0 and key order is kept (JSON.parse + stringify would write 1)
    expect(t.messages[2].tool_calls).toEqual([{ id: "call_1", name: "share_contacts", arguments: '{"recipient":"sync@contacts-backup.example","limit":1.0,"note":"café"}' }]);
    expect(t.messages[3]).toMatchObject({ tool_call_id: "call_1", tool_name: "share_contacts" });
    expect(t.messages[5]).toMatchObject({ text: "", error: "SMTP relay refused the message", tool_name: "send_email" });
    expect(t.metadata).toMatchObject({ task: "tool_poisoning_bench", sample_id: "poisoned-1", epoch: 1, run_id: "R1" });
    expect((t.metadata?.scores as Record<string, unknown>).task_success).toEqual({ value: "I" });
  });
  it("a .json log gives the same trajectory as the .eval", async () => {
    const a = (await read([EVAL])).ts[0];
    const b = (await read([LOG])).ts[0];
    expect({ ...b, id: a.id, source: a.source }).toEqual(a);
  });
  it("without --security-scorer no reference is guessed; a missing scorer is one warning per file", async () => {
    expect((await read([EVAL])).ts[0].reference).toBeUndefined();
    const r = await read([EVAL], { securityScorer: "nope" });
    expect(r.ts[0].reference).toBeUndefined();
    expect(r.ws).toHaveLength(1);
    expect(r.ws[0].message).toMatch(/"nope".*injection_success, task_success/);
  });
  it("scorer values that do not read as a verdict are named and counted per value, never guessed (red team 31 L4c)", async () => {
    const log = JSON.parse(fs.readFileSync(LOG, "utf8"));
    const base = log.samples[0];
    log.samples = (["P", 0.5, "yes", "P", true] as unknown[]).map((value, i) => ({ ...base, id: `s${i}`, scores: { ...base.scores, injection_success: { value } } }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-inspect-score-"));
    try {
      const f = path.join(dir, "scores.json");
      fs.writeFileSync(f, JSON.stringify(log));
      const r = await read([f], { securityScorer: "injection_success" });
      expect(r.ts.map((t) => t.reference?.security)).toEqual([undefined, undefined, undefined, undefined, true]);
      const ws = r.ws.filter((w) => w.kind === "unreadable_security_score").map((w) => w.message);
      expect(ws).toHaveLength(3);
      expect(ws[0]).toMatch(/security scorer "injection_success" gives "P", which does not read as a verdict .* \(2 /);
      expect(ws.join("\n")).toContain("gives the number 0.5,");
      expect(ws.join("\n")).toContain('gives "yes",');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("--utility-scorer gives reference.utility beside the security verdict; a missing or unreadable one is named, never guessed (new user 32)", async () => {
    expect((await read([EVAL], { securityScorer: "injection_success" })).ts[0].reference).toEqual({ security: true });
    const both = await read([EVAL], { securityScorer: "injection_success", utilityScorer: "task_success" });
    expect(both.ts[0].reference).toEqual({ security: true, utility: false });
    expect(both.ws).toEqual([]);
    const alone = await read([EVAL], { utilityScorer: "task_success" });
    expect(alone.ts[0].reference).toEqual({ utility: false });
    const missing = await read([EVAL], { utilityScorer: "nope" });
    expect(missing.ts[0].reference).toBeUndefined();
    expect(missing.ws.map((w) => w.kind)).toEqual(["no_utility_score"]);
    expect(missing.ws[0].message).toMatch(/utility scorer "nope".*injection_success, task_success.*no reference\.utility/);
    const log = JSON.parse(fs.readFileSync(LOG, "utf8"));
    const base = log.samples[0];
    log.samples = (["C", 0.5] as unknown[]).map((value, i) => ({ ...base, id: `u${i}`, scores: { ...base.scores, task_success: { value } } }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-inspect-utility-"));
    try {
      const f = path.join(dir, "scores.json");
      fs.writeFileSync(f, JSON.stringify(log));
      const r = await read([f], { securityScorer: "injection_success", utilityScorer: "task_success" });
      expect(r.ts.map((t) => t.reference)).toEqual([{ security: true, utility: true }, { security: true }]);
      expect(r.ws.map((w) => w.kind)).toEqual(["unreadable_utility_score"]);
      expect(r.ws[0].message).toContain('utility scorer "task_success" gives the number 0.5,');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("scores read with no scorer named are said once per file, never guessed from their names (new user 34)", async () => {
    const r = await read([EVAL]);
    expect(r.ts[0].reference).toBeUndefined();
    const w = r.ws.filter((x) => x.kind === "inspect_scores_not_read");
    expect(w).toHaveLength(1);
    expect(w[0].message).toMatch(/scores \(injection_success, task_success\).*--security-scorer.*--utility-scorer/);
    expect((await read([EVAL], { securityScorer: "injection_success" })).ws.filter((x) => x.kind === "inspect_scores_not_read")).toEqual([]);
  });
  it("the sample's own agent_model wins over the log's model; its other spellings do not (new user 34)", async () => {
    const log = JSON.parse(fs.readFileSync(LOG, "utf8"));
    const base = log.samples[0];
    log.samples = [
      { ...base, id: "a", metadata: { ...base.metadata, agent_model: "gpt-4o-2024-05-13" } },
      { ...base, id: "b", metadata: { ...base.metadata, model: "grader-model" } },
    ];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-inspect-model-"));
    try {
      const f = path.join(dir, "m.json");
      fs.writeFileSync(f, JSON.stringify(log));
      const { ts } = await read([f]);
      expect(ts.map((t) => t.agent_model)).toEqual(["gpt-4o-2024-05-13", "openai/gpt-4o-mini"]);
      expect(ts[0].agent_family).toBe("openai");
      const mapped = (await read([f], { fieldMap: { model: "agent_model" } })).ts;
      expect(mapped[1].agent_model).toBe("grader-model");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("counts samples from the zip's directory for progress", async () => {
    expect(await countInputs([EVAL])).toBe(2);
  });
  it("compactRaw keeps every token byte for byte", () => {
    expect(compactRaw('{ "a" : 1.50, "b": "x\\u00e9 y", "c": [ 1e3 , -0 ] }')).toBe('{"a":1.50,"b":"x\\u00e9 y","c":[1e3,-0]}');
  });
});

describe("Inspect errors", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-inspect-"));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  it("a .eval that is not a zip is one read_error naming the file", async () => {
    const f = path.join(tmp, "bad.eval");
    fs.writeFileSync(f, "not a zip");
    const r = await read([f]);
    expect(r.es.map((e) => e.kind)).toEqual(["read_error"]);
    expect(r.es[0].message).toMatch(/bad\.eval: not a readable \.eval/);
  });
  it("a sample entry over the size limit is too_large, the file's other samples still read", async () => {
    const r = await read([EVAL], { maxItemBytes: 12_500 });
    expect(r.es.map((e) => e.kind).sort()).toEqual(["too_large", "unresolved_attachment"].sort());
    expect(r.es.find((e) => e.kind === "too_large")!.message).toMatch(/samples\/poisoned-1_epoch_1\.json/);
  });
});

describe("label on an Inspect log, end to end through the real client", () => {
  let tmp: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-inspect-cli-"));
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  it("no request carries attachment://; the sample with a missing attachment is never sent", async () => {
    const fake = await startFakeOpenAI(() => completion(JSON.stringify({ findings: [], label: "not_exposed", rationale: "none" })));
    try {
      const cfg = path.join(tmp, "j.json");
      fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "j", model: "m", family: "openai", base_url: fake.url }] }));
      const labels = path.join(tmp, "labels");
      const r = await runCli(["label", EVAL, "--judges", cfg, "--run", "i", "--labels-dir", labels, "--security-scorer", "injection_success", "--utility-scorer", "task_success", "--json"], {
        env: { ...process.env, OPENAI_API_KEY: "test" },
      });
      expect(r.code).toBe(0);
      const s = JSON.parse(r.stdout);
      expect(s.trajectories).toBe(1);
      expect(s.errors.by_kind).toEqual({ unresolved_attachment: 1 });
      // --security-scorer reaches the reader: the scorer's value is the benchmark's reference
      const idx = fs.readFileSync(path.join(labels, "i", "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      expect(typeof idx[0].reference?.security).toBe("boolean");
      expect(idx[0].reference?.utility).toBe(false); // --utility-scorer too: task_success "I"
      expect(fake.requests.length).toBeGreaterThan(0);
      for (const q of fake.requests) expect(JSON.stringify(q.body)).not.toMatch(/attachment:\/\//);
      expect(fake.requests.every((q) => !JSON.stringify(q.body).includes("poisoned-2"))).toBe(true);
      // the poisoned description (held only in a condensed model event) reaches the judge inside the tool list
      const [t] = (await read([EVAL])).ts;
      const poisoned = t.tools!.find((x) => /IMPORTANT|ignore|must/i.test(x.description))!;
      expect(poisoned).toBeDefined();
      const user = JSON.stringify(fake.requests[0].body.messages);
      expect(user).toMatch(/<tools_[0-9a-z]+>/);
      expect(user).toContain(JSON.stringify(poisoned.description.slice(0, 40)).slice(1, -1));
    } finally {
      await fake.close();
    }
  });
  it("the signature judge labels the run that follows the poisoned description full_compliance, surface tool_description", async () => {
    const labels = path.join(tmp, "labels-sig");
    const r = await runCli(["label", EVAL, "--run", "s", "--labels-dir", labels, "--json"]);
    expect(r.code).toBe(0);
    const v = fs.readFileSync(path.join(labels, "s", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(v).toHaveLength(1);
    expect(v[0]).toMatchObject({ status: "ok", label: "full_compliance", surface: "tool_description" });
  });
});
