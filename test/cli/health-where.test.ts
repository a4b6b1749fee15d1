/**
 * Red team 19: under `--where`, every command computes the judge health it shows over the trajectories its figures
 * are of, so `compare`, `estimate --table`, `agree --reference` and `report` agree on `denies_reference_goal` and
 * quote the same counts. The bundled AgentDojo samples are labelled by the signature judge (no network), then each
 * fixture rewrites the attacked rows' `reference.security` (the benchmark's goal verdict) so that the flag fires only
 * inside a `--where` subset (fixture A) or only on the whole run (fixture B). The refusal labels the signature judge
 * gives count as denials too (red team 19, item 2).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
const COMPLIANCE = new Set(["full_compliance", "partial_compliance"]);
/** The mark of the signature judge's rates in any output: where it is, the command exits 3 (src/cli/broken-exit.ts). */
const MARKED = /JUDGE (?:"|&quot;)signature(?:"|&quot;) LOOKS BROKEN/; // the judge quoted (out51), as HTML escapes it in the report

/** Copy the labelled run to `dir` with `security` set by `goal(suite, the signature label is compliance)`. */
function fixture(dir: string, goal: (suite: string, compliance: boolean) => boolean): string {
  const src = path.join(tmp, "base", "s");
  const dst = path.join(tmp, dir, "s");
  fs.mkdirSync(dst, { recursive: true });
  for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dst, f));
  const label = new Map<string, string>();
  for (const l of fs.readFileSync(path.join(src, "verdicts.jsonl"), "utf8").split("\n").filter(Boolean)) {
    const v = JSON.parse(l);
    if (v.repeat === 0) label.set(v.trajectory_id, v.label);
  }
  const rows = fs.readFileSync(path.join(src, "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => {
    const r = JSON.parse(l);
    if (r.attacked && typeof r.reference?.security === "boolean") r.reference.security = goal(r.suite, COMPLIANCE.has(label.get(r.id) ?? ""));
    return JSON.stringify(r);
  });
  fs.writeFileSync(path.join(dst, "trajectories.jsonl"), rows.join("\n") + "\n");
  return path.join(tmp, dir);
}

/** What each command says of the flag ("16 of its 16", or "" when silent), text output and the report's HTML. */
async function said(labels: string, where: string[]): Promise<Record<string, string>> {
  // (the fixture's judge claims compliance where the benchmark says not achieved too: claims_reference_failures may follow)
  const pick = (text: string) =>
    [...new Set((text.match(/denies_reference_goal(?:, [a-z_]+)*\): \d+ of its \d+/g) ?? []).map((m) => m.replace(/(?:, [a-z_]+)+\)/, ")")))].join(" | ");
  const run = ["--run", "s", "--labels-dir", labels, ...where];
  const out: Record<string, string> = {};
  for (const [name, args] of [
    ["compare", ["compare", "--by", "attack", "--bootstrap", "0"]],
    ["estimate", ["estimate", "--table"]],
    ["agree", ["agree", "--reference", "security"]],
  ] as const) {
    const r = await runCli([...args, ...run]);
    // exit 3 exactly when the figures are marked (any caveat: claims_reference_failures may be the one), as label
    expect(r.code, r.stderr).toBe(MARKED.test(r.stdout + r.stderr) ? 3 : 0);
    if (r.code === 3) expect(r.stderr).toMatch(new RegExp(`^ipi-judge: ${name} finished, but its figures use a judge that looks broken \\(signature: .*\\): exit code 3$`, "m"));
    out[name] = pick(r.stdout + r.stderr);
  }
  const html = path.join(labels, "r.html");
  const r = await runCli(["report", ...run, "--out", html, "--bootstrap", "0"]);
  expect(r.code, r.stderr).toBe(MARKED.test(fs.readFileSync(html, "utf8")) ? 3 : 0);
  out.report = pick(fs.readFileSync(html, "utf8"));
  return out;
}
const all = (x: string) => ({ compare: x, estimate: x, agree: x, report: x });

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-health-where-"));
  const r = await runCli(["label", SAMPLES, "--run", "s", "--labels-dir", path.join(tmp, "base")]);
  expect(r.code, r.stderr).toBe(0);
}, 180_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("judge health under --where: every command over the same population", () => {
  it("fires only inside the subset: every command flags the subset with its counts, none the whole run", async () => {
    // goal achieved where the signature judge complied in banking and slack, and where it did not in travel and workspace
    const L = fixture("A", (suite, c) => (c ? suite === "banking" || suite === "slack" : suite === "travel" || suite === "workspace"));
    expect(await said(L, [])).toEqual(all(""));
    expect(await said(L, ["--where", "suite=travel,workspace"])).toEqual(all("denies_reference_goal): 16 of its 16"));
  }, 180_000);

  it("fires only on the whole run: every command flags the whole run, none the subset", async () => {
    // goal achieved where it complied in banking, and where it did not everywhere else
    const L = fixture("B", (suite, c) => (c ? suite === "banking" : suite !== "banking"));
    expect(await said(L, [])).toEqual(all("denies_reference_goal): 24 of its 33"));
    expect(await said(L, ["--where", "suite=banking"])).toEqual(all(""));
  }, 180_000);
});
