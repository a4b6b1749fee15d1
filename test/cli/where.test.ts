/**
 * `--where` is one filter applied identically by label, agree, sample, estimate, compare and report, and every
 * output states it (issue 22 item 3). Real vendored slice: test/data/like-for-like (14 AgentDojo runs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";
import { DATA } from "../helpers/paths.js";

const SLICE = path.join(DATA, "like-for-like", "runs");
const WHERE = ["--where", "condition=tool_filter,no_defense", "--where", "user_task=user_task_0"];
// recomputed from the slice's paths: tool_filter and undefended runs of user_task_0 (3 attacks + none; ii + none)
const KEPT = 6;

describe("--where in every command", () => {
  let dir: string;
  const L = () => ["--labels-dir", path.join(dir, "labels")];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-where-"));
    const r = await runCli(["label", SLICE, "--run", "all", ...L()]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("the slice holds what KEPT says (recomputed from the files)", () => {
    const files: string[] = [];
    const walk = (d: string) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.relative(SLICE, path.join(d, e.name)))));
    walk(SLICE);
    const kept = files.filter((f) => /^gpt-4o-2024-05-13(-tool_filter)?\//.test(f) && JSON.parse(fs.readFileSync(path.join(SLICE, f), "utf8")).user_task_id === "user_task_0");
    expect(kept.length).toBe(KEPT);
  });

  it("compare, agree, estimate --table, report and sample state the same filter and count in their JSON", async () => {
    const expected = { filter: "condition=tool_filter,no_defense user_task=user_task_0", kept: KEPT, of: 14, unmatched: [] };
    const cmp = JSON.parse((await runCli(["compare", "--run", "all", ...L(), ...WHERE, "--bootstrap", "0", "--json"])).stdout);
    expect(cmp.where).toMatchObject(expected);
    const agree = await runCli(["agree", "--run", "all", ...L(), ...WHERE, "--reference", "security", "--json"]);
    expect(agree.code, agree.stderr).toBe(0);
    expect(JSON.parse(agree.stdout).where).toMatchObject(expected);
    const est = await runCli(["estimate", "--run", "all", ...L(), ...WHERE, "--table", "--json", "--csv", path.join(dir, "t.csv")]);
    expect(est.code, est.stderr).toBe(0);
    const t = JSON.parse(est.stdout);
    expect(t.where).toMatchObject(expected);
    const csv = fs.readFileSync(path.join(dir, "t.csv"), "utf8").trim().split("\n");
    expect(csv[0]).toMatch(/,where,judge_caveat,notes$/); // the filter, then the always-present caveat columns (fix51b)
    expect(csv[1]).toContain(',"condition=tool_filter,no_defense user_task=user_task_0",');
    // like for like (the default): a kept attacked run is in a row's n or among the runs it left out (not on the shared cells)
    expect(t.rows.reduce((s: number, r: { n_attacked: number; n_attacked_left_out: number; n_unattacked: number }) => s + r.n_attacked + r.n_attacked_left_out + r.n_unattacked, 0)).toBe(KEPT);
    const rep = await runCli(["report", "--run", "all", ...L(), ...WHERE, "--out", path.join(dir, "r.html"), "--bootstrap", "0", "--json"]);
    expect(rep.code, rep.stderr).toBe(0);
    expect(JSON.parse(rep.stdout)).toMatchObject({ where: expected, trajectories: KEPT });
    expect(fs.readFileSync(path.join(dir, "r.html"), "utf8")).toContain(`filter --where condition=tool_filter,no_defense user_task=user_task_0: ${KEPT} of 14 trajectories of the run`);
    const smp = await runCli(["sample", "--run", "all", ...L(), ...WHERE, "--random", "3", "--seed", "1", "--out", path.join(dir, "s"), "--json"]);
    expect(smp.code, smp.stderr).toBe(0);
    expect(JSON.parse(smp.stdout)).toMatchObject({ where: expected, population: KEPT });
    expect(JSON.parse(fs.readFileSync(path.join(dir, "s", "design.json"), "utf8")).where).toMatchObject(expected);
  }, 120_000);

  it("label --where stores and judges only what it keeps, and says so; --dry-run counts the same", async () => {
    const r = await runCli(["label", SLICE, "--run", "part", ...L(), ...WHERE, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.trajectories).toBe(KEPT);
    expect(j.where).toMatchObject({ kept: KEPT, of: KEPT });
    expect(j.this_run.where).toMatchObject({ kept: KEPT, of: 14 });
    const d = await runCli(["label", SLICE, "--run", "fresh", ...L(), ...WHERE, "--dry-run", "--json"]);
    expect(JSON.parse(d.stdout)).toMatchObject({ trajectories: KEPT, where: { kept: KEPT, of: 14 } });
    const text = await runCli(["label", SLICE, "--run", "part", ...L(), ...WHERE]);
    expect(unwrapText(text.stdout)).toMatch(new RegExp(`this invocation: 14 trajectories read, ${KEPT} kept by --where`));
    // the first line says what was read and what was kept, as this_run.where and where say it (new user 18 L4: "6 of 6");
    // broken for reading at its clauses (src/format/wrap-text.ts): joined back, the line as it was
    expect(unwrapText(text.stdout).split("\n")[0]).toBe(
      `filter --where ${j.where.filter}: this invocation read 14 trajectories and kept ${KEPT} (the others neither stored nor judged); ` +
        `the summary below is over the run's trajectories the filter keeps: ${KEPT} of ${KEPT}`,
    );
  }, 120_000);

  it("--where with --limit: one meaning of read / kept in text, --json, summary.json and --dry-run (red team 2, finding 6)", async () => {
    const LIM = ["--where", "attack=important_instructions", "--limit", "2"];
    const r = await runCli(["label", SLICE, "--run", "lim-json", ...L(), ...LIM, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const tr = JSON.parse(r.stdout).this_run;
    // read: from the input before the filter (up to where --limit stopped reading); kept: filter and limit let through
    expect(tr.kept).toBe(2);
    expect(tr.judged).toBe(2);
    expect(tr.read).toBe(tr.where.of);
    expect(tr.read).toBeGreaterThan(2);
    expect(tr.where.kept).toBe(tr.kept);
    // summary.json holds the same this_run as --json, --where statement included
    expect(JSON.parse(fs.readFileSync(path.join(dir, "labels", "lim-json", "summary.json"), "utf8")).this_run).toEqual(tr);
    const text = await runCli(["label", SLICE, "--run", "lim-text", ...L(), ...LIM]);
    expect(unwrapText(text.stdout)).toContain(`this invocation: ${tr.read} trajectories read, 2 kept by --where attack=important_instructions and --limit 2 (`);
    const dj = JSON.parse((await runCli(["label", SLICE, "--run", "lim-dry", ...L(), ...LIM, "--dry-run", "--json"])).stdout);
    expect(dj).toMatchObject({ read: tr.read, trajectories: 2, limit: 2, where: { kept: 2, of: tr.read } });
    const dt = await runCli(["label", SLICE, "--run", "lim-dry", ...L(), ...LIM, "--dry-run"]);
    expect(unwrapText(dt.stdout)).toContain(`dry run of lim-dry: ${tr.read} trajectories read, 2 kept by --where attack=important_instructions and --limit 2;`);
  }, 120_000);

  it("agree and report --human --where: a labelled trajectory the run holds but --where drops is outside_where, not not_in_run (pop19b)", async () => {
    const rows = fs.readFileSync(path.join(dir, "labels", "all", "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { id: string; attacked: boolean; condition: string; user_task_id: string });
    const keeps = (r: (typeof rows)[number]) => ["tool_filter", "no_defense"].includes(r.condition) && r.user_task_id === "user_task_0";
    const kept = rows.find((r) => r.attacked && keeps(r))!;
    const outside = rows.filter((r) => r.attacked && !keeps(r)).slice(0, 2);
    const unattacked = rows.find((r) => !r.attacked && !keeps(r))!;
    expect([kept, unattacked, ...outside].every(Boolean) && outside.length === 2).toBe(true);
    const ids = [kept.id, ...outside.map((r) => r.id), unattacked.id, "no-such-model/workspace/user_task_0/none/none"];
    const f = path.join(dir, "h.csv");
    fs.writeFileSync(f, ["trajectory_id,annotator,label", ...ids.flatMap((id) => [`${id},ann,unaffected`, `${id},bob,unaffected`])].join("\n") + "\n");
    const j = await runCli(["agree", "--run", "all", ...L(), ...WHERE, "--human", f, "--bootstrap", "0", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    const r = JSON.parse(j.stdout);
    // each by its own reason; the field names of before kept (excluded_items, unattacked_left_out.unknown_not_in_run)
    expect(r.excluded_items).toEqual({ not_in_run: 1, unattacked: 1, outside_where: 2 });
    expect(r.consensus.n).toBe(1);
    expect(r.unattacked_left_out).toMatchObject({ unattacked: 1, unknown: 1, unknown_not_in_run: 1, outside_where: 2 });
    const t = await runCli(["agree", "--run", "all", ...L(), ...WHERE, "--human", f, "--bootstrap", "0"]);
    expect(unwrapText(t.stdout)).toContain("left out, each by the first reason that holds: not_in_run 1, unattacked 1, outside_where 2");
    expect(unwrapText(t.stdout)).toContain("the annotators' agreement also over 1 not in the run (attacked flag unknown)");
    expect(unwrapText(t.stdout)).toContain("2 trajectories outside --where left out: in the run, but the filter drops them");
    const rep = await runCli(["report", "--run", "all", ...L(), ...WHERE, "--human", f, "--out", path.join(dir, "rh.html"), "--bootstrap", "0"]);
    expect(rep.code, rep.stderr).toBe(0);
    const html = fs.readFileSync(path.join(dir, "rh.html"), "utf8").replace(/<[^>]*>/g, ""); // the text, without its bdi tags
    expect(html).toContain("not_in_run 1, unattacked 1, outside_where 2");
    expect(html).toContain("the annotators&#39; agreement also over 1 not in the run (attacked flag unknown)");
    expect(html).toContain("2 trajectories outside --where left out");
  }, 120_000);

  it("an unknown field is refused (exit 2); a value that matches nothing is a warning naming it; nothing kept is refused", async () => {
    const bad = await runCli(["compare", "--run", "all", ...L(), "--where", "defence=x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown field "defence"/);
    const miss = await runCli(["agree", "--run", "all", ...L(), "--reference", "security", "--where", "condition=tool_filter,tool_filtre"]);
    expect(miss.code).toBe(0);
    expect(miss.stderr).toMatch(/--where condition=tool_filtre matches none of the 14 trajectories of run all \(condition values: no_defense, repeat_user_prompt, tool_filter\)/);
    expect(unwrapText(miss.stdout)).toMatch(/filter --where condition=tool_filter,tool_filtre: 4 of 14 trajectories \(matched nothing: condition=tool_filtre\)/);
    const none = await runCli(["estimate", "--run", "all", ...L(), "--table", "--where", "suite=travel"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/keeps none of the 14 trajectories of run all/);
    // the filter and the count once (session 40: "--where suite=travel keeps none of ...: --where suite=travel matches none of ...")
    expect(none.stderr).toMatch(/^ipi-judge: --where suite=travel keeps none of the 14 trajectories of run all: suite=travel matches none \(suite values: /);
  }, 60_000);

  it("--where on the attack alone leaves out the unattacked runs: utility reads why, and the note gives (none) (estimate --table, compare)", async () => {
    const one = ["--where", "attack=important_instructions"];
    const est = await runCli(["estimate", "--run", "all", ...L(), ...one, "--table", "--json"]);
    expect(est.code, est.stderr).toBe(0);
    const t = JSON.parse(est.stdout);
    expect(t.rows.filter((r: { utility: { reason?: string } }) => r.utility.reason === "unattacked_outside_where").length).toBeGreaterThan(0);
    expect(t.notes.join("\n")).toMatch(/utility \(without attack\) reads undefined on \d+ of the \d+ rows because --where attack=important_instructions leaves out the run's \d+ unattacked runs .*--where 'attack=important_instructions,\(none\)' keeps them/);
    const text = await runCli(["estimate", "--run", "all", ...L(), ...one, "--table"]);
    expect(unwrapText(text.stdout)).toContain("undefined (--where left out the unattacked runs)");
    expect(unwrapText(text.stdout)).not.toContain("no unattacked trajectory");
    // with (none) the unattacked runs are kept: no such cell, no note
    const kept = await runCli(["estimate", "--run", "all", ...L(), "--where", "attack=important_instructions,(none)", "--table"]);
    expect(unwrapText(kept.stdout)).not.toMatch(/left out the unattacked runs|leaves out the run's/);
    const cmp = await runCli(["compare", "--run", "all", ...L(), ...one, "--bootstrap", "0"]);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(cmp.stdout + cmp.stderr).toMatch(/utility without attack is not shown because --where attack=important_instructions leaves out/);
  }, 60_000);
});
