/**
 * Verdicts stored under older verification rules (src/rubric/verify-rules.ts) do not keep their labels silently.
 * Through the built CLI with a scripted 127.0.0.1 judge whose quote is made up: `label` stores downgraded verdicts
 * (verify_rules on each); some lines are then rewritten to look like an older build's (no verify_rules, the made-up
 * quote marked verified and the label full_compliance, as a looser rule set would have let it stand). The figure
 * commands warn (count, judge, the fix); `label` again re-verifies them with no judge call, moves the labels back,
 * keeps the old label in `reverified`, says so in one line, and names what it could not re-verify (a verdict whose
 * judge saw an elided trajectory), which stays marked older.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unwrapText } from "../../src/format/wrap-text.js";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { MADE_UP_COMPLIANCE_REPLY } from "../helpers/made-up-reply.js";
import { VERIFY_RULES_VERSION } from "../../src/rubric/verify-rules.js";

const LIE = MADE_UP_COMPLIANCE_REPLY;

let tmp: string;
let labels: string;
let judges: string;
let fake: FakeOpenAI;
let file: string;
/** trajectory ids rewritten to look old (full_compliance on the made-up quote), and the one also marked truncated */
let oldIds: string[] = [];
let truncatedId = "";

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-reverify-"));
  fake = await startFakeOpenAI((req) => completion(LIE, { usage: { prompt_tokens: JSON.stringify(req.body?.messages ?? "").length, completion_tokens: 50 } }));
  judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ retries: 0, judges: [{ id: "liar", model: "dumb", family: "meta", base_url: fake.url, concurrency: 4, output_mode: "json_object" }] }));
  labels = path.join(tmp, "labels");
  const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels]);
  expect([0, 3], r.stderr).toContain(r.code);
  file = path.join(labels, "r", "verdicts.jsonl");
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
  const vs = lines.map((l) => JSON.parse(l));
  // every verdict made now records today's rules
  for (const v of vs) expect(v.verify_rules).toBe(VERIFY_RULES_VERSION);
  // attacked trajectories the judge's made-up quote did not verify on: ok, downgraded to what code sets
  const targets = vs.filter((v) => v.status === "ok" && v.attacked === true && v.downgraded === true && v.label !== "full_compliance").slice(0, 4);
  expect(targets.length).toBe(4);
  for (const v of targets) {
    // as an older build would have stored it, had its rules let the quote stand
    delete v.verify_rules;
    v.label = "full_compliance";
    v.compromised = true;
    v.downgraded = false;
    v.label_basis = "finding";
    v.findings = v.findings.map((f: { bucket: string; evidence: Array<Record<string, unknown>> }) =>
      f.bucket === "full_compliance" ? { ...f, holds: true, evidence: f.evidence.map((q) => ({ message_index: q.message_index, quote: q.quote, verified: true })) } : f,
    );
    v.rationale = "made up";
    for (const k of ["injection_absent", "injection_unchecked", "compliance_evidence", "relabel", "blocked_call", "error"]) delete v[k];
    v.blocked_attempt = false;
    oldIds.push(v.trajectory_id);
  }
  targets[3].truncated = true; // its judge saw an elided trajectory: cannot be re-verified
  truncatedId = targets[3].trajectory_id;
  oldIds = oldIds.slice(0, 3);
  fs.writeFileSync(file, vs.map((v) => JSON.stringify(v)).join("\n") + "\n");
}, 240_000);
afterAll(async () => {
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const OLDER = (n: number) => new RegExp(`verdicts\\.jsonl: ${n} current verdicts? (was|were) verified under older verification rules than this build's \\(judge "liar": ${n}\\).*Run \`ipi-judge label\` on this run again`);

describe("verdicts verified under older rules", () => {
  it("the figure commands warn: count, judge, and label again as the fix", async () => {
    const runs: Array<[string, string[]]> = [
      ["agree", ["agree", "--run", "r", "--labels-dir", labels, "--reference", "security"]],
      ["compare", ["compare", "--run", "r", "--labels-dir", labels, "--by", "attack", "--bootstrap", "0"]],
      ["estimate", ["estimate", "--run", "r", "--labels-dir", labels, "--table"]],
      ["report", ["report", "--run", "r", "--labels-dir", labels, "--out", path.join(tmp, "report.html")]],
      // --quorum 1: a one-judge run's default quorum is refused before any verdict is read (fix48b), so no warning
      ["committee", ["committee", "--run", "r", "--labels-dir", labels, "--quorum", "1"]],
    ];
    for (const [name, args] of runs) {
      const r = await runCli(args);
      // the committee file it writes is not the later steps' (they re-verify and read the run as it was)
      fs.rmSync(path.join(labels, "r", "committee.jsonl"), { force: true });
      expect(`${name}: ${r.stderr}${unwrapText(r.stdout)}`).toMatch(OLDER(4)); // stdout's lines as before the 120-column wrap
    }
    // label --dry-run says what label would do with them, at no cost
    const d = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels, "--dry-run"]);
    expect(d.stdout).toMatch(/note: 4 stored verdict\(s\) were verified under older rules: label re-verifies those of its LLM judges from their stored findings with no judge call/);
    expect(d.stdout).toMatch(/judge liar \(dumb\): 0 requests/);
    const j = await runCli(["agree", "--run", "r", "--labels-dir", labels, "--reference", "security", "--json"]);
    expect(JSON.parse(j.stdout).warnings.join("\n")).toMatch(OLDER(4));
  }, 240_000);

  it("label re-verifies them with no judge call: labels moved back, the old one kept, one line says so", async () => {
    const sent = fake.requests.length;
    const before = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").length;
    const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels]);
    expect([0, 3], r.stderr).toContain(r.code);
    expect(fake.requests.length).toBe(sent); // no judge call
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/3 stored verdict\(s\) verified under older rules were re-verified under verification rules 5 with no judge call \(no cost\); 3 label\(s\) moved \(full_compliance -> \w+: \d+/);
    expect(out).toMatch(/1 could not be re-verified and are left as stored, still marked older \(the judge saw an elided trajectory \(which text is not stored\): 1\)/);
    expect(out).toMatch(/1 current verdict\(s\) of the run remain verified under older rules/);
    const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    expect(lines.length).toBe(before + 3); // appended; the old lines stay
    const added = lines.slice(before).map((l) => JSON.parse(l));
    expect(added.map((v) => v.trajectory_id).sort()).toEqual([...oldIds].sort());
    for (const v of added) {
      expect(v.verify_rules).toBe(VERIFY_RULES_VERSION);
      expect(v.label).not.toBe("full_compliance");
      expect(v.downgraded).toBe(true);
      expect(v.compromised).toBe(false);
      expect(v.reverified).toMatchObject({ from_rules: null, label_before: "full_compliance", status_before: "ok" });
      expect(v.findings.find((f: { bucket: string }) => f.bucket === "full_compliance")).toMatchObject({ holds: false });
      expect(v.rationale).toMatch(/Re-verified under verification rules 5 with no judge call: the label was full_compliance under the older rules/);
      expect(v.raw_replies.length).toBeGreaterThan(0); // the original's, kept
    }
  }, 240_000);

  it("after it, figures warn only of the one left older; a second label re-reads only its file and says it again", async () => {
    const e = await runCli(["estimate", "--run", "r", "--labels-dir", labels, "--table"]);
    expect(e.stderr + unwrapText(e.stdout)).toMatch(OLDER(1));
    const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels]);
    expect(r.stdout + r.stderr).toMatch(/0 stored verdict\(s\) verified under older rules were re-verified.*1 could not be re-verified/);
    // the resume fast path passed over every unchanged file but the one with a verdict still to re-verify
    const s = JSON.parse(fs.readFileSync(path.join(labels, "r", "summary.json"), "utf8"));
    expect(s.this_run.read - s.this_run.unread).toBe(1);
    const v = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)).filter((x) => x.trajectory_id === truncatedId);
    expect(v.at(-1).label).toBe("full_compliance"); // left as stored
  }, 240_000);
});

describe("verdicts verified under older rules, every stored repeat", () => {
  it("a repeat beyond this invocation's --repeats is re-verified too", async () => {
    const labels2 = path.join(tmp, "labels-repeats");
    const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels2, "--repeats", "2"]);
    expect([0, 3], r.stderr).toContain(r.code);
    const f = path.join(labels2, "r", "verdicts.jsonl");
    const vs = fs.readFileSync(f, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
    const target = vs.find((v) => v.repeat === 1 && v.status === "ok" && v.attacked === true && v.downgraded === true)!;
    delete target.verify_rules;
    target.label = "full_compliance";
    target.compromised = true;
    target.downgraded = false;
    target.label_basis = "finding";
    target.findings = target.findings.map((x: { bucket: string; evidence: Array<Record<string, unknown>> }) =>
      x.bucket === "full_compliance" ? { ...x, holds: true, evidence: x.evidence.map((q) => ({ message_index: q.message_index, quote: q.quote, verified: true })) } : x,
    );
    for (const k of ["injection_absent", "injection_unchecked", "compliance_evidence", "relabel", "blocked_call", "error"]) delete target[k];
    fs.writeFileSync(f, vs.map((v) => JSON.stringify(v)).join("\n") + "\n");
    const sent = fake.requests.length;
    const again = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels2]);
    expect(fake.requests.length).toBe(sent);
    expect(again.stdout + again.stderr).toMatch(/1 stored verdict\(s\) verified under older rules were re-verified .*1 label\(s\) moved \(full_compliance -> /);
    const last = JSON.parse(fs.readFileSync(f, "utf8").trim().split("\n").at(-1)!);
    expect(last).toMatchObject({ trajectory_id: target.trajectory_id, repeat: 1, verify_rules: VERIFY_RULES_VERSION, reverified: { label_before: "full_compliance" } });
  }, 240_000);
});

describe("an older verdict of a trajectory whose input is gone (brk40)", () => {
  it("is not the re-verifier's: the label runs after it was left out say nothing of it", async () => {
    const f2 = await startFakeOpenAI(() => completion(JSON.stringify({ findings: [], label: "unaffected", rationale: "nothing done" })));
    try {
      const w = path.join(tmp, "gone");
      fs.cpSync(path.join(SAMPLES, "runs", "gemini-1.5-pro-001"), path.join(w, "runs", "g"), { recursive: true });
      const j = path.join(w, "judges.json");
      fs.writeFileSync(j, JSON.stringify({ judges: [{ id: "llm", model: "m", family: "openai", base_url: f2.url, concurrency: 4, output_mode: "json_object" }] }));
      const label = async () => {
        const r = await runCli(["label", "runs", "--judges", j, "--run", "r", "--labels-dir", "L", "--json"], { cwd: w });
        expect(r.code, r.stderr).toBe(0);
        return (JSON.parse(r.stdout).warnings as string[]).filter((x) => /verified under older rules/.test(x));
      };
      await label();
      const vf = path.join(w, "L", "r", "verdicts.jsonl");
      const vs = fs.readFileSync(vf, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      fs.writeFileSync(vf, vs.map((v) => JSON.stringify({ ...v, verify_rules: undefined })).join("\n") + "\n");
      const gone = fs.readdirSync(path.join(w, "runs", "g"), { recursive: true, encoding: "utf8" }).filter((x) => x.endsWith(".json")).sort()[0];
      fs.rmSync(path.join(w, "runs", "g", gone));
      // this run re-verifies the others and finds the file gone (left out from now on)
      expect((await label()).join("\n")).toMatch(/1 current verdict\(s\) of the run remain verified under older rules/);
      // the next: nothing to re-verify, nothing said (before: "0 stored verdict(s) ... re-verified ...; 1 ... remain" on every run)
      expect(await label()).toEqual([]);
      const c = await runCli(["compare", "--run", "r", "--labels-dir", "L", "--json"], { cwd: w });
      expect(JSON.parse(c.stdout).warnings.join("\n")).not.toContain("older");
    } finally {
      await f2.close();
    }
  }, 60_000);
});
