/**
 * Verifier 37 V2.1 at the command line: a label file moved away from its sample folder (its rows' `sample_manifest`,
 * relative to the file, now leads nowhere) is said once by agree --human, estimate and report, naming the path tried
 * and that the adjudication check was skipped, on stderr and in --json's warnings (run `npm run build` first).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { printedLines } from "../helpers/printed-lines.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-cli-moved-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SRC = path.resolve("test/data/agentdojo/runs/gpt-4o-2024-05-13/workspace/user_task_5");
const L = ["--run", "r", "--labels-dir", path.join(tmp, "labels")];
const moved = path.join(tmp, "moved-noadj.jsonl");
const NOTE = /label file .*moved-noadj\.jsonl names the sample manifest \.\.\/study1\/manifest\.jsonl \(sample_manifest, relative to the label file\), not found at .*\/study1\/manifest\.jsonl: the check for adjudications the label file lacks was skipped/;
/** Lines saying it, the text output's wrapped lines joined back (src/format/wrap-text.ts). */
const count = (s: string) => printedLines(s).filter((l) => NOTE.test(l)).length;

beforeAll(async () => {
  const runs = path.join(tmp, "runs", "gpt-4o-2024-05-13", "workspace", "user_task_5");
  fs.mkdirSync(path.dirname(runs), { recursive: true });
  fs.cpSync(SRC, runs, { recursive: true });
  const r = await runCli(["label", path.join(tmp, "runs"), ...L]);
  expect([0, 3], r.stderr).toContain(r.code);
  const ids = fs.readFileSync(path.join(tmp, "labels", "r", "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((t) => t.attacked).map((t) => t.id as string);
  // an import's output, as written beside out/ for study1/ and then copied up one folder
  const rows = ids.slice(0, 6).flatMap((id, i) =>
    ["ann", "bob"].map((a) => ({ trajectory_id: id, annotator: a, label: i % 2 ? "unaffected" : "full_compliance", item_id: `abc-${String(i + 1).padStart(3, "0")}`, sample_manifest: "../study1/manifest.jsonl" })),
  );
  fs.writeFileSync(moved, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
}, 120_000);

describe("a moved label file whose recorded sample manifest is not found", () => {
  it("agree --human says so once, in text and in --json's warnings", async () => {
    const t = await runCli(["agree", ...L, "--human", moved, "--bootstrap", "0"]);
    expect(t.code, t.stderr).toBe(0);
    expect(count(t.stdout + t.stderr)).toBe(1);
    const j = await runCli(["agree", ...L, "--human", moved, "--bootstrap", "0", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).warnings.filter((w: string) => NOTE.test(w))).toHaveLength(1);
    expect(count(j.stderr)).toBe(1);
  }, 60_000);

  it("report says so on stderr and in --json's warnings (the page too)", async () => {
    const out = path.join(tmp, "r.html");
    const j = await runCli(["report", ...L, "--human", moved, "--out", out, "--bootstrap", "0", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).warnings.filter((w: string) => NOTE.test(w))).toHaveLength(1);
    expect(count(j.stderr)).toBe(1);
    expect(fs.readFileSync(out, "utf8")).toContain("not found at");
  }, 60_000);

  it("estimate --human says so once, in text and in --json's warnings", async () => {
    const t = await runCli(["estimate", ...L, "--human", moved, "--judge", "signature"]);
    expect(t.code, t.stderr).toBe(0);
    expect(count(t.stdout + t.stderr)).toBe(1);
    const j = await runCli(["estimate", ...L, "--human", moved, "--judge", "signature", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout).warnings.filter((w: string) => NOTE.test(w))).toHaveLength(1);
  }, 60_000);
});
