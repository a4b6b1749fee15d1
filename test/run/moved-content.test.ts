/**
 * A renamed or moved run folder (red team 39, high), through the built CLI: in AgentDojo layout the model folder's
 * name is part of every trajectory id, so a renamed folder made every trajectory new: judged again (paid again with an
 * LLM judge) and, given the renamed folder with relative paths, counted twice in every figure with no warning. Now the
 * resume carries the stored verdicts over (no judge call) and leaves the old ids out; a real copy (both folders there)
 * is judged and counted, and every figure command says it (`same_content`) in text and in `--json`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { sameContentWarning } from "../../src/run/same-content.js";
import { loadViewRun } from "../../src/view/run-data.js";
import { IdSlots } from "../../src/store/id-slots.js";
import { HashColumn } from "../../src/store/compact.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "moved-content-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const MODEL = "gemini-1.5-pro-001";
const files = (dir: string) => fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json"));

/** A work folder holding `runs/<model>/...` (a copy of the vendored sample), and `label` / figure commands run in it. */
function work(name: string) {
  const w = path.join(tmp, name);
  fs.cpSync(path.join(SAMPLES, "runs", MODEL), path.join(w, "runs", MODEL), { recursive: true });
  const cli = async (args: string[]) => {
    const r = await runCli([...args, "--run", "r", "--labels-dir", "L"], { cwd: w });
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  const label = async (input: string) => JSON.parse((await cli(["label", input, "--judge", "signature", "--json"])).stdout);
  return { w, cli, label, n: files(path.join(w, "runs", MODEL)).length };
}

/** compare counts `attacked` runs with no same_content warning, and again after a full `label` of `runs`. */
async function countedOnceThenAfterFullRead(cli: (args: string[]) => Promise<{ stdout: string }>, attacked: number): Promise<void> {
  const compare = JSON.parse((await cli(["compare", "--json"])).stdout);
  expect(compare.n_observations).toBe(attacked);
  expect(compare.warnings.join("\n")).not.toContain("same_content");
  await cli(["label", "runs", "--judge", "signature", "--json"]);
  expect(JSON.parse((await cli(["compare", "--json"])).stdout).n_observations).toBe(attacked);
}

describe("a renamed model folder", () => {
  it("is not judged again: the verdicts are carried over, the old ids leave the figures, and nothing is counted twice", async () => {
    const { w, cli, label, n } = work("rename");
    const first = await label(path.join("runs", MODEL));
    expect(first.trajectories).toBe(n);
    const attacked = first.attacked;
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "renamed"));
    // the renamed folder given alone, with a relative path: the old folder's place cannot be told from the paths
    const again = await label(path.join("runs", "renamed"));
    expect(again.this_run.judged).toBe(0);
    expect(again.this_run.sent_by_judge ?? {}).toEqual({});
    expect(again.trajectories).toBe(n);
    expect(again.attacked).toBe(attacked);
    const moved = again.warnings.find((x: string) => x.startsWith("moved "));
    expect(moved).toContain(`moved ${n} trajectories: verdicts carried over (${n} verdicts, no judge call)`);
    expect(moved).toContain(`${path.join("runs", MODEL)}${path.sep}`);
    expect(moved).toContain(` -> ${path.join("runs", "renamed")}${path.sep}`);
    expect(again.warnings.join("\n")).not.toContain("same_content");
    expect(again.warnings.join("\n")).not.toContain("cannot tell where that folder is now");
    expect(again.inputs_removed).toMatchObject({ count: n });
    // the carried verdicts name their old id, and cost nothing now
    const lines = fs.readFileSync(path.join(w, "L", "r", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const carried = lines.filter((v) => v.carried_from !== undefined);
    expect(carried.length).toBe(n);
    expect(carried.every((v) => v.trajectory_id.startsWith("renamed/") && v.carried_from.startsWith(`${MODEL}/`) && v.cost_usd === 0)).toBe(true);
    expect(fs.existsSync(path.join(w, "L", "r", "same-content.json"))).toBe(false);
    // every figure: the attacked n once, no same_content
    const compare = JSON.parse((await cli(["compare", "--json"])).stdout);
    expect(compare.n_observations).toBe(attacked);
    expect(compare.warnings.join("\n")).not.toContain("same_content");
    // a third resume: nothing to do, nothing carried again
    const third = await label(path.join("runs", "renamed"));
    expect(third.this_run.judged).toBe(0);
    expect(third.warnings.join("\n")).not.toMatch(/^moved /m);
    expect(third.trajectories).toBe(n);
  });

  it("a real copy (both folders there) is judged and counted, and every figure command says so in text and in --json", async () => {
    const { w, cli, label, n } = work("copy");
    const first = await label("runs");
    fs.cpSync(path.join(w, "runs", MODEL), path.join(w, "runs", "copy"), { recursive: true });
    const again = await label("runs");
    expect(again.this_run.judged).toBe(n); // a copy, not a move: judged (the old file is there)
    expect(again.trajectories).toBe(2 * n);
    expect(again.warnings.join("\n")).not.toMatch(/^moved /m);
    expect(again.warnings.find((x: string) => x.startsWith("same_content:"))).toContain(`(${n} groups; ${n} more than once counted)`);
    const record = JSON.parse(fs.readFileSync(path.join(w, "L", "r", "same-content.json"), "utf8"));
    expect(record).toMatchObject({ count: 2 * n, extra: n, groups: n, folders: [path.join("runs", "copy"), path.join("runs", MODEL)] });
    const said = `same_content: ${n} trajectories are counted more than once in every figure of this run`;
    const commands: string[][] = [
      ["compare"],
      ["estimate", "--table"],
      ["agree", "--reference", "security"],
      ["committee", "--quorum", "1"],
      ["sample", "--random", "4", "--seed", "1", "--out", "s1"],
      ["report", "--out", "rep.html"],
    ];
    for (const c of commands) {
      const text = await cli(c);
      expect(text.stderr, c.join(" ")).toContain(said);
      expect(text.stderr, c.join(" ")).toContain(`"${path.join("runs", "copy")}"`);
      const out = c[0] === "sample" ? ["sample", "--random", "4", "--seed", "1", "--out", "s2"] : c[0] === "report" ? ["report", "--out", "rep2.html"] : c;
      const json = JSON.parse((await cli([...out, "--json"])).stdout);
      // a warning record of the command's JSON (estimate --table's are its `notes`)
      const warnings: unknown[] = json.warnings ?? json.summary?.warnings ?? json.notes;
      expect(warnings.some((x) => JSON.stringify(x).includes(said)), c.join(" ")).toBe(true);
    }
    // view's data: its warnings (shown on the page and at start-up)
    const view = await loadViewRun(path.join(w, "L", "r"));
    expect(view.rows.length).toBe(2 * n);
    expect(view.warnings.join("\n")).toContain(said);
    expect(first.attacked * 2).toBe(JSON.parse((await cli(["compare", "--json"])).stdout).n_observations);
    // the copy removed and the run labelled again: the record goes, and the figures say nothing more
    fs.rmSync(path.join(w, "runs", "copy"), { recursive: true });
    const back = await label("runs");
    expect(back.trajectories).toBe(n);
    expect(fs.existsSync(path.join(w, "L", "r", "same-content.json"))).toBe(false);
    expect((await cli(["compare"])).stderr).not.toContain("same_content");
  });
});

describe("a renamed model folder with an LLM judge (a loopback server on 127.0.0.1)", () => {
  it("--where after a rename: what the filter leaves out stays counted under its old id, not dropped (brk40)", async () => {
    const { w, cli } = work("where");
    const first = JSON.parse((await cli(["label", "runs", "--judge", "signature", "--json"])).stdout);
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "renamed"));
    await cli(["label", "runs", "--judge", "signature", "--json", "--where", "suite=banking"]);
    const removed = JSON.parse(fs.readFileSync(path.join(w, "L", "r", "inputs-removed.json"), "utf8"));
    // only the banking runs moved (carried and their old ids left out); the others keep their old ids for now
    expect(removed.ids.length).toBeGreaterThan(0);
    expect(removed.ids.every((id: string) => id.startsWith(`${MODEL}/banking/`))).toBe(true);
    // the figures count each run once, and still after a full read carries the rest
    await countedOnceThenAfterFullRead(cli, first.attacked);
  });

  let fake: FakeOpenAI | undefined;
  afterAll(async () => fake?.close());

  it("sends no request on the resume, and the dry run counts none", async () => {
    fake = await startFakeOpenAI(() => completion(JSON.stringify({ findings: [], label: "unaffected", rationale: "nothing done" })));
    const { w, n } = work("llm");
    const judges = path.join(w, "judges.json");
    fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "llm", model: "m", family: "openai", base_url: fake.url, concurrency: 4, output_mode: "json_object" }] }));
    const label = (input: string, more: string[] = []) => runCli(["label", input, "--judges", judges, "--run", "r", "--labels-dir", "L", "--json", ...more], { cwd: w });
    await label(path.join("runs", MODEL));
    const sent = fake.requests.length;
    expect(sent).toBeGreaterThanOrEqual(n);
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "renamed"));
    const dry = JSON.parse((await label(path.join("runs", "renamed"), ["--dry-run"])).stdout);
    expect(dry.moved).toBe(n);
    expect(dry.judges[0]).toMatchObject({ requests: 0, already_stored: n });
    const again = JSON.parse((await label(path.join("runs", "renamed"))).stdout);
    expect(fake.requests.length).toBe(sent);
    expect(again.this_run.judged).toBe(0);
    expect(again.trajectories).toBe(n);
    expect(again.warnings.find((x: string) => x.startsWith("moved "))).toContain(`moved ${n} trajectories: verdicts carried over`);
  }, 60_000);
});

describe("a move seen by a read cut short, and a move of several judges (brk40)", () => {
  it("--limit: the carried trajectories' old ids are left out at once, not counted beside the new ones until a full read", async () => {
    const { w, cli, n } = work("limit");
    const first = JSON.parse((await cli(["label", "runs", "--judge", "signature", "--json"])).stdout);
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "renamed"));
    const cut = JSON.parse((await cli(["label", "runs", "--judge", "signature", "--json", "--limit", String(n - 3)])).stdout);
    const moved = cut.warnings.find((x: string) => x.startsWith("moved "));
    expect(moved).toMatch(/^moved \d+ trajectories/);
    const k = Number(/^moved (\d+)/.exec(moved)![1]);
    expect(k).toBeGreaterThan(0);
    const removed = JSON.parse(fs.readFileSync(path.join(w, "L", "r", "inputs-removed.json"), "utf8"));
    expect(removed.ids.length).toBe(k);
    expect(removed.ids.every((id: string) => id.startsWith(`${MODEL}/`))).toBe(true);
    // the figures: as many attacked as before the move, and nothing counted twice, before and after a full read
    await countedOnceThenAfterFullRead(cli, first.attacked);
  });

  let fake: FakeOpenAI | undefined;
  afterAll(async () => fake?.close());
  it("a verdict the old id holds on its earlier content (a judge not run since the file changed) is not carried to the new id", async () => {
    fake = await startFakeOpenAI(() => completion(JSON.stringify({ findings: [], label: "unaffected", rationale: "nothing done" })));
    const { w } = work("stale");
    const both = path.join(w, "both.json");
    const one = path.join(w, "one.json");
    const judge = (id: string) => ({ id, model: "m", family: "openai", base_url: fake!.url, concurrency: 4, output_mode: "json_object" });
    fs.writeFileSync(both, JSON.stringify({ judges: [judge("a"), judge("b")] }));
    fs.writeFileSync(one, JSON.stringify({ judges: [judge("a")] }));
    const label = async (input: string, judges: string) => {
      const r = await runCli(["label", input, "--judges", judges, "--run", "r", "--labels-dir", "L", "--json"], { cwd: w });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    await label("runs", both);
    // one file's content changes; judge a alone labels it again: b's verdict of that id stays on the earlier content
    const rel = files(path.join(w, "runs", MODEL)).sort()[0];
    const file = path.join(w, "runs", MODEL, rel);
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    doc.messages.push({ role: "assistant", content: "one more line", tool_calls: null });
    fs.writeFileSync(file, JSON.stringify(doc));
    await label("runs", one);
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "renamed"));
    const again = await label("runs", one);
    expect(again.this_run.judged).toBe(0);
    const lines = fs.readFileSync(path.join(w, "L", "r", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const changedId = `renamed/${rel.replace(/\.json$/, "").split(path.sep).join("/")}`;
    const carried = lines.filter((v) => v.carried_from !== undefined);
    // a's verdict of the changed file is carried (made on its content now), b's is not (made on the earlier content)
    expect(carried.filter((v) => v.trajectory_id === changedId).map((v) => v.judge_id)).toEqual(["a"]);
    // every other file: both judges' verdicts carried
    expect(carried.filter((v) => v.trajectory_id !== changedId && v.judge_id === "b").length).toBeGreaterThan(0);
    for (const v of carried) expect(v.content_sha256).toBeDefined();
  }, 60_000);

  it("a judge or repeat the old id has no verdict of is judged, and what it has is carried, not paid again (dry run alike)", async () => {
    const { w, n } = work("partial");
    const both = path.join(w, "both.json");
    const one = path.join(w, "one.json");
    const judge = (id: string) => ({ id, model: "m", family: "openai", base_url: fake!.url, concurrency: 4, output_mode: "json_object" });
    fs.writeFileSync(both, JSON.stringify({ judges: [judge("a"), judge("b")] }));
    fs.writeFileSync(one, JSON.stringify({ judges: [judge("a")] }));
    const label = async (judges: string, more: string[] = []) => {
      const r = await runCli(["label", "runs", "--judges", judges, "--run", "r", "--labels-dir", "L", "--json", ...more], { cwd: w });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    await label(one);
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "renamed"));
    // a held repeat 0 of judge a: a's repeat 1 and b's two repeats are what is left
    const dry = await label(both, ["--repeats", "2", "--dry-run"]);
    expect(dry.moved).toBe(n);
    expect(dry.judges.find((j: { id: string }) => j.id === "a")).toMatchObject({ requests: n, already_stored: n });
    expect(dry.judges.find((j: { id: string }) => j.id === "b")).toMatchObject({ requests: 2 * n, already_stored: 0 });
    const again = await label(both, ["--repeats", "2"]);
    expect(again.this_run.judged).toBe(3 * n);
    expect(again.warnings.find((x: string) => x.startsWith("moved "))).toContain(`moved ${n} trajectories: verdicts carried over (${n} verdicts, no judge call)`);
    expect(again.trajectories).toBe(n);
    const lines = fs.readFileSync(path.join(w, "L", "r", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const carried = lines.filter((v) => v.carried_from !== undefined);
    expect(carried.every((v) => v.judge_id === "a" && v.repeat === 0 && v.cost_usd === 0)).toBe(true);
    expect(carried.length).toBe(n);
    // judge a's repeat 0 of the new ids: only the carried one (not judged and paid again)
    expect(lines.filter((v) => v.judge_id === "a" && v.repeat === 0 && v.trajectory_id.startsWith("renamed/")).length).toBe(n);
  }, 60_000);
});

describe("a folder renamed onto the name of another whose files are gone (verify41)", () => {
  /** `runs/<MODEL>` and `runs/other`: the same relative paths, other content (each user message edited), both labelled. */
  async function twoFolders(name: string) {
    const wk = work(name);
    const other = path.join(wk.w, "runs", "other");
    fs.cpSync(path.join(wk.w, "runs", MODEL), other, { recursive: true });
    for (const f of files(other)) {
      const file = path.join(other, f);
      const j = JSON.parse(fs.readFileSync(file, "utf8"));
      const m = j.messages.find((x: { role: string }) => x.role === "user");
      if (typeof m.content === "string") m.content += " (other)";
      else m.content = [...(m.content ?? []), { type: "text", content: " (other)" }];
      fs.writeFileSync(file, JSON.stringify(j));
    }
    const first = await wk.label("runs");
    expect(first.trajectories).toBe(2 * wk.n);
    return { ...wk, first };
  }
  const verdictLines = (w: string) => fs.readFileSync(path.join(w, "L", "r", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));

  it("is carried, not judged: the path's earlier verdicts (other content) are superseded, never reused; counted once; the dry run agrees", async () => {
    const { w, cli, label, n, first } = await twoFolders("occupied");
    const before = verdictLines(w);
    const mine = new Map(before.filter((v) => v.trajectory_id.startsWith(`${MODEL}/`)).map((v) => [v.trajectory_id.slice(MODEL.length + 1), v]));
    fs.rmSync(path.join(w, "runs", "other"), { recursive: true });
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "other"));
    const dry = JSON.parse((await cli(["label", "runs", "--judge", "signature", "--json", "--dry-run"])).stdout);
    expect(dry.moved).toBe(n);
    expect(dry.judges[0]).toMatchObject({ requests: 0 });
    const again = await label("runs");
    expect(again.this_run.judged).toBe(0); // before: every one judged again (paid again with an LLM judge)
    expect(again.trajectories).toBe(n);
    expect(again.attacked).toBe(first.attacked / 2);
    const moved = again.warnings.find((x: string) => x.startsWith("moved "));
    expect(moved).toContain(`moved ${n} trajectories: verdicts carried over (${n} verdicts, no judge call)`);
    expect(moved).toContain(`; ${n} of them onto an id whose path held another trajectory (other content, its file gone): the ${n} verdict(s) of that content are superseded by the carried ones, not reused`);
    // each id under runs/other now holds the carried verdict of the same content, with its label
    const after = verdictLines(w).slice(before.length);
    expect(after.length).toBe(n);
    for (const v of after) {
      const from = mine.get(v.trajectory_id.slice("other/".length))!;
      expect(v).toMatchObject({ carried_from: from.trajectory_id, content_sha256: from.content_sha256, label: from.label });
    }
    await countedOnceThenAfterFullRead(cli, first.attacked / 2);
  });

  it("three folders rotated: the one whose content's old path holds other content now is carried from there too, never judged again; counted once", async () => {
    const { w, cli, label, n, first } = await twoFolders("rotated");
    const before = verdictLines(w);
    fs.renameSync(path.join(w, "runs", "other"), path.join(w, "runs", "third"));
    fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "other"));
    const again = await label("runs");
    expect(again.trajectories).toBe(2 * n);
    const moved = again.warnings.find((x: string) => x.startsWith("moved "));
    expect(moved).toContain(`moved ${2 * n} trajectories`);
    expect(moved).toContain(`; ${n} of them from an id whose file is still there but holds other content now`);
    // before (recover42): runs/third was judged again, its content's stored id (other/...) having a file that holds other content now
    expect(again.this_run.judged).toBe(0);
    const third = verdictLines(w).slice(before.length).filter((v) => v.trajectory_id.startsWith("third/"));
    expect(third.length).toBe(n);
    const was = new Map(before.map((v) => [v.trajectory_id, v]));
    for (const v of third) expect(v).toMatchObject({ carried_from: v.trajectory_id.replace(/^third\//, "other/"), content_sha256: was.get(v.carried_from)!.content_sha256, label: was.get(v.carried_from)!.label });
    await countedOnceThenAfterFullRead(cli, first.attacked);
  });
});

describe("same_content names a recorded file that is no longer there as such", () => {
  it("says 'recorded from ..., not there now' instead of naming it as the place now", async () => {
    const idSlots = new IdSlots();
    const hashes = new HashColumn();
    for (const id of ["a", "b"]) hashes.set(idSlots.slot(id), "ab".repeat(32));
    const here = path.join(tmp, "here.json");
    fs.writeFileSync(here, "{}");
    const src: Record<string, string> = { a: path.join(tmp, "gone", "a.json"), b: here };
    const store = { idSlots, hashes, trajectorySource: (id: string) => src[id], trajectorySourceRelative: () => false };
    const w = await sameContentWarning(["a", "b"], store, async (wanted, each) => {
      for (const id of ["a", "b"]) if (wanted.has(id)) each({ id, agent_model: "m" } as TrajectoryIndexRow);
    });
    expect(w).toContain(`"a" (recorded from ${src.a}, not there now) = "b" (${here})`);
  });
});
