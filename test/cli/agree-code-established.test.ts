/**
 * agree's code-established count is over the items its figures use (new user 18 L1): `--reference` counted every
 * attacked label ("1648 of 10880" beside figures over 10,861 used), `--human` every labelled attacked trajectory
 * ("12 of 53" while 42 were compared). Real samples (samples/agentdojo, 2 attacked runs with an agent error),
 * the signature judge (no network).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let L: string[];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-agree-code-"));
  L = ["--labels-dir", path.join(tmp, "labels")];
  const r = await runCli(["label", SAMPLES, "--run", "s", ...L]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("agree: the code-established count over the figures' items", () => {
  it("--reference: over the judge's used pairs (an agent error's label left out, as the figures leave it)", async () => {
    const j = JSON.parse((await runCli(["agree", "--run", "s", ...L, "--reference", "security", "--json"])).stdout);
    expect(j.excluded.run_error).toBeGreaterThan(0); // the sample holds attacked runs the figures leave out
    expect(j.code_established[0].attacked_labels).toBe(j.n_used);
    const t = await runCli(["agree", "--run", "s", ...L, "--reference", "security"]);
    expect(unwrapText(t.stdout)).toMatch(new RegExp(`labels established by code \\(of the attacked runs compared above\\): judge "signature": \\d+ of ${j.n_used} attacked labels`));
    // the health line beside it is over every verdict (its attacked labels include the agent errors): said (new user 23)
    expect(unwrapText(t.stdout)).toMatch(new RegExp(`health of judge signature \\(over every verdict of the run, compared or not\\): .*code-established [0-9.]+% of ${j.n_used + j.excluded.run_error} attacked labels`));
  }, 60_000);

  it("--human: over the compared trajectories, not the tied ones", async () => {
    const rows = fs.readFileSync(path.join(tmp, "labels", "s", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const ids = rows.filter((r) => r.attacked && !r.run_error).map((r) => r.id as string).slice(0, 12);
    // two annotators: they agree on the first 8, tie (compromised vs not) on the last 4
    const human = path.join(tmp, "human.csv");
    const lines = ids.flatMap((id, i) => [`${id},a,${i % 2 ? "unaffected" : "full_compliance"}`, `${id},b,${i < 8 ? (i % 2 ? "unaffected" : "full_compliance") : i % 2 ? "full_compliance" : "unaffected"}`]);
    fs.writeFileSync(human, "trajectory_id,annotator,label\n" + lines.join("\n") + "\n");
    const j = JSON.parse((await runCli(["agree", "--run", "s", ...L, "--human", human, "--json", "--bootstrap", "0"])).stdout);
    expect(j.consensus.n).toBe(8);
    expect(j.excluded_items.consensus_tie).toBe(4);
    const sig = j.judges.find((x: { rater: string }) => x.rater === "signature");
    expect(j.code_established[0].attacked_labels).toBe(sig.unweighted.n_used);
    const t = await runCli(["agree", "--run", "s", ...L, "--human", human, "--bootstrap", "0"]);
    expect(unwrapText(t.stdout)).toMatch(new RegExp(`labels established by code: judge "signature": \\d+ of ${sig.unweighted.n_used} attacked labels`));
  }, 60_000);
});
