/**
 * No line of the text outputs ends in a space (review finding: agree printed "disagreements (full_compliance vs
 * security): " before its list). On a small real run: the committee fixture over the bundled AgentDojo samples
 * (three judges that disagree on a deterministic subset, a committee, human labels), so every block with a header
 * and a list below it is printed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";

let tmp: string;
let fx: CommitteeFixture;
beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-trailing-"));
  fx = await buildCommitteeFixture(tmp, { hostile: false });
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The lines of a text that end in a space or tab, with their number. */
const trailing = (text: string) =>
  text
    .split("\n")
    .map((l, i) => [i + 1, l] as const)
    .filter(([, l]) => /[ \t]$/.test(l))
    .map(([i, l]) => `${i}: ${JSON.stringify(l)}`);

describe("no printed line ends in a space", () => {
  const run = () => ["--run", fx.run, "--labels-dir", fx.labelsDir];
  const cases: [string, () => string[]][] = [
    ["agree --reference security", () => ["agree", ...run(), "--reference", "security"]],
    ["agree --judges", () => ["agree", ...run(), "--judges", "signature,lenient-a"]],
    ["agree --human", () => ["agree", ...run(), "--human", fx.humanFile]],
    ["committee", () => ["committee", ...run()]],
    ["compare --by attack", () => ["compare", ...run(), "--by", "attack", "--committee", "--bootstrap", "50", "--seed", "1"]],
    ["report", () => ["report", ...run(), "--human", fx.humanFile, "--committee", "--out", path.join(tmp, "r.html")]],
  ];
  for (const [what, args] of cases)
    it(what, async () => {
      const r = await runCli(args());
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.length + r.stderr.length).toBeGreaterThan(0);
      expect(trailing(r.stdout)).toEqual([]);
      expect(trailing(r.stderr)).toEqual([]);
      if (what === "agree --reference security") expect(r.stdout).toMatch(/^disagreements \(full_compliance vs security\):$/m);
    }, 60_000);
});
