/**
 * New user 30: one committee per run, named everywhere. Run `c` holds three scripted LLM judges
 * (test/committee/scripted-judges.ts) and the offline `signature` judge; `committee --exclude-judge signature`
 * stores the committee of the three. Run `c3` holds the same three judges' verdicts only (a second scripted server:
 * the same plan), so its committee is every judge = the same three. Every committee figure of run `c` — agree
 * --reference, agree --human, estimate --committee (and --table), compare --committee, report — must equal run
 * `c3`'s, name the members, and differ from the four-judge committee (the one these commands used before).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { ROOT, SAMPLES } from "../helpers/paths.js";
import { startScriptedCommittee, type ScriptedCommittee } from "../committee/scripted-judges.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const HUMAN = path.join(ROOT, "test", "agree", "fixtures", "samples-human.csv");
const MEMBERS = ["claude", "gpt-a", "gpt-b"];
const NAME = "committee (claude, gpt-a, gpt-b; quorum 2)";
let tmp: string;
let labels: string;
const servers: ScriptedCommittee[] = [];

const cli = async (run: string, ...args: string[]) => {
  const r = await runCli([...args, "--run", run, "--labels-dir", labels]);
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  return r;
};
const json = async (run: string, ...args: string[]) => JSON.parse((await cli(run, ...args, "--json")).stdout);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-nu30-committee-"));
  labels = path.join(tmp, "labels");
  for (const run of ["c", "c3"]) {
    const sc = await startScriptedCommittee(SAMPLES, fs.mkdtempSync(path.join(tmp, run)));
    servers.push(sc);
    const r = await runCli(["label", SAMPLES, "--judges", sc.configFile, "--run", run, "--labels-dir", labels, "--json"]);
    expect(r.code, r.stderr).toBe(0);
  }
  const sig = await runCli(["label", SAMPLES, "--run", "c", "--labels-dir", labels, "--json"]); // the signature judge, into the same run
  expect(sig.code, sig.stderr).toBe(0);
  await cli("c", "committee", "--exclude-judge", "signature", "--bootstrap", "0", "--json");
  await cli("c3", "committee", "--bootstrap", "0", "--json");
}, 180_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  if (!process.env.KEEP_TMP) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("new user 30: the committee of a run is the stored one's members in every command", () => {
  it("committee.jsonl of run c is the three LLM judges'; c3's the same three", () => {
    for (const run of ["c", "c3"]) {
      const first = JSON.parse(fs.readFileSync(path.join(labels, run, "committee.jsonl"), "utf8").split("\n")[0]);
      expect(first.committee_judges).toEqual(MEMBERS);
      expect(first.excluded_judges).toEqual(run === "c" ? ["signature"] : []);
    }
  });

  it("estimate --committee: the three members, named, the same figures as run c3, blocked attempts counted as committee counts them", async () => {
    const [e, e3, four] = await Promise.all([
      json("c", "estimate", "--human", HUMAN, "--committee"),
      json("c3", "estimate", "--human", HUMAN, "--committee"),
      json("c", "estimate", "--human", HUMAN, "--committee", "--exclude-judge", "gpt-a"),
    ]);
    expect(e.source).toEqual({ kind: "committee", quorum: 2, members: MEMBERS, left_out: ["signature"] });
    expect(e.groups[0].judge).toEqual(e3.groups[0].judge);
    expect(e.groups[0].calibrated).toEqual(e3.groups[0].calibrated);
    // another selection than the stored one: used, and said
    expect(four.source.members).toEqual(["claude", "gpt-b", "signature"]);
    expect(four.warnings.join("\n")).toMatch(/the committee asked for, committee \(claude, gpt-b, signature; quorum 2\), is not the one stored in committee\.jsonl, committee \(claude, gpt-a, gpt-b; quorum 2\)/);
    const text = (await cli("c", "estimate", "--human", HUMAN, "--committee")).stdout;
    expect(text).toContain(`labels of ${NAME} (left out: signature)`);

    const [t, t3, comm] = await Promise.all([json("c", "estimate", "--table", "--committee"), json("c3", "estimate", "--table", "--committee"), json("c", "committee", "--exclude-judge", "signature", "--bootstrap", "0")]);
    expect(t.judge).toBe(NAME);
    expect(t.committee).toEqual({ members: MEMBERS, left_out: ["signature"], quorum: 2 });
    const strip = (rows: Array<Record<string, unknown>>) => rows.map((r) => ({ ...r, heuristic_asr_goal: null, heuristic_asr_behaviour: null, heuristic_exposure: null, heuristic_exposure_low: null }));
    expect(strip(t.rows)).toEqual(strip(t3.rows));
    // blocked attempts: counted (not "not counted for a committee"), summing to the committee's own count
    const sum = (k: string) => t.rows.reduce((a: number, r: Record<string, number>) => a + (r[k] ?? 0), 0);
    for (const r of t.rows) expect(r.judge_blocked_attempts_reason).toBeUndefined();
    expect(sum("judge_partial_compliance")).toBe(comm.committee.rates.asr_behaviour.count - comm.committee.rates.asr_goal.count);
    expect(sum("judge_blocked_attempts")).toBe(comm.committee.rates.blocked_attempts);
  });

  it("agree --human and agree --reference: the committee row is the three members', as run c3's", async () => {
    const [h, h3, r, r3] = await Promise.all([
      json("c", "agree", "--human", HUMAN, "--bootstrap", "0"),
      json("c3", "agree", "--human", HUMAN, "--bootstrap", "0"),
      json("c", "agree", "--reference", "security"),
      json("c3", "agree", "--reference", "security"),
    ]);
    const row = (x: { judges: Array<{ kind: string }> }) => x.judges.find((j) => j.kind === "committee") as { members: string[]; unweighted: unknown };
    expect(row(h).members).toEqual(MEMBERS);
    expect(row(h).unweighted).toEqual(row(h3).unweighted);
    expect(r.committee.members).toEqual(MEMBERS);
    const { rate_caveats: _a, ...rc } = r.committee;
    const { rate_caveats: _b, ...rc3 } = r3.committee;
    expect(rc).toEqual(rc3);
    expect(unwrapText((await cli("c", "agree", "--human", HUMAN, "--bootstrap", "0")).stdout)).toContain(`the ${NAME} vs the human consensus`);
    expect(unwrapText((await cli("c", "agree", "--reference", "security")).stdout)).toContain(NAME);
    // the row is read from committee.jsonl: another selection is refused, naming both and how to store it
    const bad = await runCli(["agree", "--reference", "security", "--exclude-judge", "gpt-a", "--run", "c", "--labels-dir", labels]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/reads the committee from committee\.jsonl, the committee \(claude, gpt-a, gpt-b; quorum 2\); the one asked for is the committee \(claude, gpt-b, signature; quorum 2\): run ipi-judge committee --run c --exclude-judge gpt-a/);
  });

  it("compare --committee: named, the same rates as run c3's; another selection refused", async () => {
    const [c, c3] = await Promise.all([json("c", "compare", "--committee", "--bootstrap", "0"), json("c3", "compare", "--committee", "--bootstrap", "0")]);
    expect(c.source).toEqual({ kind: "committee", members: MEMBERS, quorum: 2 });
    expect(c.rows).toEqual(c3.rows);
    expect(unwrapText((await cli("c", "compare", "--committee", "--bootstrap", "0")).stdout)).toContain(`labels from the ${NAME} (committee.jsonl)`);
    const bad = await runCli(["compare", "--committee", "--quorum", "3", "--run", "c", "--labels-dir", labels]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/compare --committee reads the committee from committee\.jsonl/);
  });

  it("report: the committee section, its members' agreement (Fleiss, not unanimous) and the paper table are the three's", async () => {
    const out = path.join(tmp, "c.html");
    const out3 = path.join(tmp, "c3.html");
    const [s] = await Promise.all([json("c", "report", "--committee", "--human", HUMAN, "--bootstrap", "0", "--out", out), json("c3", "report", "--committee", "--human", HUMAN, "--bootstrap", "0", "--out", out3)]);
    expect(s.committee_members).toEqual(MEMBERS);
    const comm = await json("c", "committee", "--exclude-judge", "signature", "--bootstrap", "0");
    const four = await json("c", "committee", "--bootstrap", "0"); // rewrites the file with every judge: restored below
    await cli("c", "committee", "--exclude-judge", "signature", "--bootstrap", "0");
    const f3 = (x: number) => x.toFixed(3);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    expect(comm.agreement.six.fleiss.value).not.toBe(four.agreement.six.fleiss.value); // the test tells the two apart
    const page = fs.readFileSync(out, "utf8").replace(/<\/?bdi>/g, "");
    expect(page).toContain(`Every committee figure of this report is that of the ${NAME} (left out: signature)`);
    expect(page).toContain(`Fleiss' kappa ${f3(comm.agreement.six.fleiss.value)}`);
    expect(page).toContain(`not unanimous ${pct(comm.agreement.not_unanimous.share)} of ${comm.agreement.not_unanimous.n}`);
    expect(page).toContain(`judge: ${NAME}`); // the paper table's
    // the same figures as run c3's page (which has no signature judge at all)
    const section = (html: string) => html.slice(html.indexOf("<h3>Committee</h3>"), html.indexOf("</section>", html.indexOf("<h3>Committee</h3>"))).replace(/ \(left out: signature\)/, "");
    expect(section(page)).toBe(section(fs.readFileSync(out3, "utf8").replace(/<\/?bdi>/g, "")));
  });
});
