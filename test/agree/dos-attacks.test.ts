import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DOS_ATTACK, dosAttackWarning } from "../../src/agree/dos-attacks.js";
import { runCli } from "../helpers/cli.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-dos-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("agree --reference security over denial-of-service attacks (new user 12: one kappa pooled them without a word)", () => {
  it("names the dos attacks, their count, and the --where that leaves them out; none: no warning", () => {
    expect(["dos", "captcha_dos", "swearwords_dos"].every((a) => DOS_ATTACK.test(a))).toBe(true);
    expect(["doser", "important_instructions", "dos_attack"].some((a) => DOS_ATTACK.test(a))).toBe(false);
    const w = dosAttackWarning(new Map([["important_instructions", 6], ["dos", 2], ["captcha_dos", 1]]), 10);
    expect(w).toBe(
      "3 of the 10 attacked trajectories ran a denial-of-service attack (captcha_dos 1, dos 2), where the benchmark's security means the user task was not completed, not an injected goal carried out: the agreement below pools the two measures over 3 attacks; --where attack=important_instructions leaves them out",
    );
    expect(dosAttackWarning(new Map([["important_instructions", 6]]), 7)).toBeNull();
  });

  it("the CLI says it on both read paths (columns; --where on objects), in text and --json; not for --reference utility", async () => {
    const dir = path.join(tmp, "labels", "r");
    fs.mkdirSync(dir, { recursive: true });
    const rows: string[] = [];
    const verdicts: string[] = [];
    for (let i = 0; i < 12; i++) {
      const attack = i < 8 ? "important_instructions" : "dos";
      const id = `m/banking/t${i}`;
      rows.push(JSON.stringify({ id, suite: "banking", attacked: true, attack, reference: { security: i % 2 === 0, utility: true }, n_messages: 3, content_sha256: `c${i}` }));
      verdicts.push(JSON.stringify({ trajectory_id: id, judge_id: "j", judge_model: "m", judge_family: "f", repeat: 0, prompt_sha256: "p", status: "ok", label: i % 2 === 0 ? "full_compliance" : "unaffected", downgraded: false, attacked: true, findings: [] }));
    }
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), rows.join("\n") + "\n");
    fs.writeFileSync(path.join(dir, "verdicts.jsonl"), verdicts.join("\n") + "\n");
    const base = ["agree", "--run", "r", "--labels-dir", path.join(tmp, "labels"), "--reference"];
    const text = await runCli([...base, "security"]);
    expect(text.code).toBe(0);
    expect(unwrapText(text.stdout)).toContain("WARNING: 4 of the 12 attacked trajectories ran a denial-of-service attack (dos 4)");
    expect(unwrapText(text.stdout)).toContain("--where attack=important_instructions leaves them out");
    const json = await runCli([...base, "security", "--json"]);
    expect(JSON.parse(json.stdout).warnings.some((w: string) => w.startsWith("4 of the 12 attacked trajectories ran a denial-of-service attack"))).toBe(true);
    const where = await runCli([...base, "security", "--where", "suite=banking"]);
    expect(unwrapText(where.stdout)).toContain("WARNING: 4 of the 12 attacked trajectories ran a denial-of-service attack (dos 4)");
    const kept = await runCli([...base, "security", "--where", "attack=important_instructions"]);
    expect(unwrapText(kept.stdout)).not.toContain("denial-of-service");
    const utility = await runCli([...base, "utility"]);
    expect(unwrapText(utility.stdout)).not.toContain("denial-of-service");
    // estimate --table reads its asr_goal against a benchmark's checker too (new user 22): said, keeping the unattacked
    const table = await runCli(["estimate", "--run", "r", "--labels-dir", path.join(tmp, "labels"), "--table", "--json"]);
    expect(table.code, table.stderr).toBe(0);
    const notes: string[] = JSON.parse(table.stdout).notes;
    expect(notes).toContain(
      "WARNING: 4 of the 12 attacked trajectories ran a denial-of-service attack (dos 4), where the benchmark's security means the user task was not completed, not an injected goal carried out: " +
        "their asr_goal is the injected instruction carried out, which that checker does not count, and the rows pool them with the other attacks (2 in all); --where 'attack=important_instructions,(none)' leaves them out",
    );
  });
});
