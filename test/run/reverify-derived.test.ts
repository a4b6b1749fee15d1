/**
 * What re-verification (src/run/reverify.ts) leaves on a verdict besides its label (verify41), through the built CLI
 * with a scripted 127.0.0.1 judge whose first reply cannot be parsed and whose second quotes text that is not there:
 * - the first decided reply's quote check (`first_reply`, judge health's first-reply figures) is checked again under
 *   today's rules from the stored raw replies, or marked `first_reply_unknown` with the reason, never the older one;
 * - a label that stands keeps no stale note: today's note leads the rationale when the stored one lacks it;
 * - the byte prefilter of lines already of today's rules is exact: `"verify_rules":1.5` (not a whole number: older)
 *   is re-verified, `"verify_rules":10` (a newer build's) is left alone;
 * - `view` shows on the trajectory's page (and in its /api/item JSON) that a label was re-verified or carried.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { MADE_UP_COMPLIANCE_REPLY } from "../helpers/made-up-reply.js";
import { VERIFY_RULES_VERSION } from "../../src/rubric/verify-rules.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const LIE = MADE_UP_COMPLIANCE_REPLY;

let tmp: string;
let labels: string;
let judges: string;
let fake: FakeOpenAI;
let file: string;
/** the rewritten verdicts: a (first reply checked again), b (its raw reply cut), c (verify_rules 1.5), d (10), e (note) */
const ids: Record<"a" | "b" | "c" | "d" | "e", string> = { a: "", b: "", c: "", d: "", e: "" };

type V = Record<string, unknown> & { trajectory_id: string; findings: Array<{ bucket: string; evidence: Array<Record<string, unknown>> }> };

/** As an older build would have stored it, had its rules let the made-up quote stand (its first reply's too). */
function older(v: V): void {
  delete v.verify_rules;
  v.label = "full_compliance";
  v.compromised = true;
  v.downgraded = false;
  v.label_basis = "finding";
  v.findings = v.findings.map((f) => (f.bucket === "full_compliance" ? { ...f, holds: true, evidence: f.evidence.map((q) => ({ message_index: q.message_index, quote: q.quote, verified: true })) } : f));
  v.rationale = "made up";
  v.first_reply = { quotes: 1, quotes_failed: 0 };
  for (const k of ["injection_absent", "injection_unchecked", "compliance_evidence", "relabel", "blocked_call", "error"]) delete v[k];
  v.blocked_attempt = false;
}

const lines = (): V[] => fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
const last = (id: string): V => lines().filter((v) => v.trajectory_id === id).at(-1)!;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-reverify-derived-"));
  // the first reply of a conversation cannot be parsed (a feedback turn follows); the second quotes made-up text
  fake = await startFakeOpenAI((req) => completion((req.body?.messages?.length ?? 0) > 2 ? LIE : '{"label": '));
  judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ retries: 1, judges: [{ id: "liar", model: "dumb", family: "meta", base_url: fake.url, concurrency: 4, output_mode: "json_object" }] }));
  labels = path.join(tmp, "labels");
  const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels]);
  expect([0, 3], r.stderr).toContain(r.code);
  file = path.join(labels, "r", "verdicts.jsonl");
  const vs = lines();
  const targets = vs.filter((v) => v.status === "ok" && v.attacked === true && v.downgraded === true && v.label !== "full_compliance").slice(0, 5);
  expect(targets.length).toBe(5);
  // made now: one feedback turn, the first decided reply is the second raw reply, its one quote failed
  for (const v of targets) expect(v).toMatchObject({ feedback_turns: 1, first_reply: { quotes: 1, quotes_failed: 1 }, verify_rules: VERIFY_RULES_VERSION });
  const [a, b, c, d, e] = targets;
  for (const v of [a, b, c, d]) older(v);
  (b.raw_replies as string[])[1] += "[... 12 more characters cut]"; // which reply came first is not known then
  c.verify_rules = 1.5; // not a whole number: older (src/rubric/verify-rules.ts), and it starts with "verify_rules":1
  d.verify_rules = 10; // a newer build's: never re-verified down
  // e: its label stands under today's rules, but the older build wrote no note before the judge's text
  delete e.verify_rules;
  e.rationale = "made up";
  Object.assign(ids, { a: a.trajectory_id, b: b.trajectory_id, c: c.trajectory_id, d: d.trajectory_id, e: e.trajectory_id });
  fs.writeFileSync(file, vs.map((v) => JSON.stringify(v)).join("\n") + "\n");
}, 240_000);
afterAll(async () => {
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("re-verification leaves no field of the older rules (verify41)", () => {
  it("label: the first reply checked again, or not known and why; the note of a label that stands; the exact prefilter", async () => {
    const sent = fake.requests.length;
    const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels]);
    expect([0, 3], r.stderr).toContain(r.code);
    expect(fake.requests.length).toBe(sent); // no judge call
    // a, b, c and e; not d (newer), which is not counted as older either
    expect(r.stdout + r.stderr).toMatch(/4 stored verdict\(s\) verified under older rules were re-verified under verification rules 5 with no judge call \(no cost\); 3 label\(s\) moved \(full_compliance -> \w+: 3\)/);
    expect(r.stdout + r.stderr).not.toMatch(/remain verified under older rules/);
    // a: the older rules' 0 failed is today's 1 failed, found in the second raw reply (the first does not parse)
    const a = last(ids.a);
    expect(a).toMatchObject({ verify_rules: VERIFY_RULES_VERSION, first_reply: { quotes: 1, quotes_failed: 1 }, reverified: { label_before: "full_compliance" } });
    expect(a).not.toHaveProperty("first_reply_unknown");
    // b: its raw reply was cut: not known, with the reason; the older figure is gone
    const b = last(ids.b);
    expect(b.reverified).toMatchObject({ label_before: "full_compliance" });
    expect(b).not.toHaveProperty("first_reply");
    expect(b.first_reply_unknown).toMatch(/a raw reply was cut or dropped to bound the record/);
    // c: 1.5 is older and was re-verified (before: the prefilter took it for today's 1 and skipped it unparsed)
    expect(last(ids.c)).toMatchObject({ verify_rules: VERIFY_RULES_VERSION, reverified: { from_rules: 1.5, label_before: "full_compliance" } });
    // d: a newer build's verdict is left as stored
    expect(last(ids.d)).toMatchObject({ verify_rules: 10, label: "full_compliance" });
    // e: the label stands; today's note leads, then the sentence, then the stored text
    const e = last(ids.e);
    expect(e.reverified).toMatchObject({ label_before: e.label });
    expect(e.rationale).toMatch(/^\[ipi-judge\] Final label \w+, not the claimed full_compliance: downgraded.*\[ipi-judge\] Re-verified under verification rules 5 with no judge call: the label is unchanged.* made up$/);
  }, 240_000);

  it("judge health counts the first reply not checked again as not known, and says why", async () => {
    const r = await runCli(["agree", "--run", "r", "--labels-dir", labels, "--reference", "security"]);
    expect(unwrapText(r.stdout)).toMatch(/not known for 1 more verdict\(s\), re-verified under newer rules with no judge call, their first reply not checkable again \(first_reply_unknown says why\)/);
    const j = await runCli(["agree", "--run", "r", "--labels-dir", labels, "--reference", "security", "--json"]);
    const h = (JSON.parse(j.stdout).judge_health as Array<{ judge_id: string; first_reply: Record<string, number> }>).find((x) => x.judge_id === "liar")!;
    expect(h.first_reply).toMatchObject({ unknown: 1, not_rechecked: 1 });
  }, 240_000);

  it("view: the trajectory's page data says the label was re-verified (and carried, when it was)", async () => {
    // a carried verdict as src/run/moved-content.ts writes it (the record's copy under the new id, carried_from set)
    const vs = lines();
    const copy = { ...vs.filter((v) => v.trajectory_id === ids.a).at(-1)!, carried_from: "runs/old <b>name</b>.json" };
    fs.appendFileSync(file, JSON.stringify(copy) + "\n");
    const { url, child } = await startView(["view", "--run", "r", "--labels-dir", labels, "--no-open"]);
    try {
      const item = JSON.parse(await get(`${url.origin}/api/item?id=${encodeURIComponent(ids.a)}&token=${url.searchParams.get("token")}`, url.host));
      const v = item.verdicts.find((x: { judge_id: string }) => x.judge_id === "liar");
      expect(v.reverified).toMatchObject({ label_before: "full_compliance", status_before: "ok" });
      expect(v.carried_from).toBe("runs/old <b>name</b>.json");
      const e = JSON.parse(await get(`${url.origin}/api/item?id=${encodeURIComponent(ids.e)}&token=${url.searchParams.get("token")}`, url.host));
      expect(e.verdicts[0].reverified).toMatchObject({ status_before: "ok" });
      expect(e.verdicts[0]).not.toHaveProperty("carried_from");
    } finally {
      child.kill("SIGTERM");
    }
  }, 120_000);
});

/** Start the built CLI's view server; resolves with the URL it prints first. */
function startView(args: string[]): Promise<{ url: URL; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout!.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl !== -1) resolve({ url: new URL(out.slice(0, nl).trim()), child });
    });
    child.stderr!.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => reject(new Error(`view exited ${code}: ${err}`)));
  });
}

function get(u: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get(u, { headers: { host } }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${res.statusCode}: ${body}`))));
      })
      .on("error", reject);
  });
}
