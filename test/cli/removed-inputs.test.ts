/**
 * Every command's figures over a run whose input files were partly deleted equal a fresh label of the remaining
 * files (removed15): label a copy of the samples, delete one model's folder, label again; then agree, committee,
 * estimate, compare, sample and report give the fresh run's figures, each saying once that the trajectories whose
 * input is gone are left out. `sample` used to fail on them ("source file not found").
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { clearJournalSkips } from "../../src/store/skipped-lines.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const so = vi.spyOn(process.stdout, "write").mockImplementation((c: string | Uint8Array) => ((stdout += String(c)), true));
  const se = vi.spyOn(process.stderr, "write").mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
  try {
    clearJournalSkips(); // one command per process, as from the shell
    return { code: await main(args), stdout, stderr };
  } finally {
    so.mockRestore();
    se.mockRestore();
    process.exitCode = undefined;
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "removed-cli-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const labels = path.join(tmp, "labels");
let goneCount = 0;

beforeAll(async () => {
  const copy = path.join(tmp, "copy");
  fs.cpSync(SAMPLES, copy, { recursive: true });
  expect((await cli(["label", copy, "--run", "A", "--labels-dir", labels, "--judge", "signature", "--json"])).code).toBe(0);
  const gone = path.join(copy, "runs", "gemini-1.5-pro-001");
  goneCount = fs.readdirSync(gone, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).length;
  expect(goneCount).toBeGreaterThan(0);
  fs.rmSync(gone, { recursive: true });
  const again = await cli(["label", copy, "--run", "A", "--labels-dir", labels, "--judge", "signature"]);
  expect(again.code).toBe(0);
  // said once in the summary, before its figures, and once on stderr as every other command says it (new user 15)
  expect(again.stdout).toContain(`WARNING: input_removed: ${goneCount} trajectories whose input is gone`);
  expect(again.stdout.match(/input_removed/g)).toHaveLength(1);
  expect(again.stdout.indexOf("input_removed")).toBeLessThan(again.stdout.indexOf("judge signature"));
  expect(again.stderr.match(/input_removed/g)).toHaveLength(1);
  // which figures lose them: the attacked ones by agent model, the unattacked counted
  const whole = unwrapText(again.stdout); // the summary is wrapped (../../src/format/wrap-text.ts)
  const attackedGone = Number(/left out of the figures: (\d+) attacked \(gemini-1\.5-pro-001 no_defense \1\), (\d+) unattacked/.exec(whole)?.[1]);
  const unattackedGone = Number(/attacked \(gemini-1\.5-pro-001 no_defense \d+\), (\d+) unattacked/.exec(whole)?.[1]);
  expect(attackedGone, again.stdout.split("\n").find((l) => l.includes("input_removed"))).toBeGreaterThan(0);
  expect(attackedGone + unattackedGone).toBe(goneCount);
  const fresh = path.join(tmp, "fresh");
  fs.cpSync(copy, fresh, { recursive: true });
  expect((await cli(["label", fresh, "--run", "B", "--labels-dir", labels, "--judge", "signature", "--json"])).code).toBe(0);
}, 120_000);

/** Drop what names the run or a time; keep every figure. */
function figures(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(figures);
  if (x && typeof x === "object")
    return Object.fromEntries(
      Object.entries(x)
        .filter(([k]) => !["run", "run_state", "warnings", "notes", "out", "bytes", "committee_file", "files", "manifest"].includes(k))
        .map(([k, v]) => [k, figures(v)]),
    );
  return typeof x === "string" ? x.replace(/\b[AB]\b|labels\/[AB]|out[AB]/g, "X") : x;
}

const COMMANDS: Array<[string, (run: string) => string[]]> = [
  ["agree", (r) => ["agree", "--reference", "security"]],
  ["committee", () => ["committee", "--quorum", "1"]],
  ["estimate --table", () => ["estimate", "--table"]],
  ["compare", () => ["compare"]],
  ["sample", (r) => ["sample", "--random", "10", "--seed", "3", "--out", path.join(tmp, `out${r}`)]],
  ["report", (r) => ["report", "--out", path.join(tmp, `report${r}.html`)]],
];

describe("a run with deleted input files: every command's figures are the fresh run's", () => {
  for (const [name, args] of COMMANDS) {
    it(name, async () => {
      const a = await cli([...args("A"), "--run", "A", "--labels-dir", labels, "--json"]);
      const b = await cli([...args("B"), "--run", "B", "--labels-dir", labels, "--json"]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      expect(figures(JSON.parse(a.stdout))).toEqual(figures(JSON.parse(b.stdout)));
      // said (in the JSON's run state or warnings, or on stderr), at most once on stderr; nothing about it for the fresh run
      const said = new RegExp(`input_removed: ${goneCount} trajectories whose input is gone`, "g");
      expect(a.stdout + a.stderr).toMatch(said);
      expect((a.stderr.match(said) ?? []).length).toBeLessThanOrEqual(1);
      expect(b.stderr).not.toContain("input_removed");
    }, 60_000);
  }
});
