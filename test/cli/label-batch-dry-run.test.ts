/**
 * Review rev2b #9: `label --batch --dry-run` with a mixed committee (one judge `"batch": true`, one online) said nothing
 * of the judge sent online, where the real run warns (`checkBatchJudges`, src/run/batch-judges.ts): the CLI's dry run
 * passed no warning handler. The built CLI; a dry run sends nothing, so the judges' address is never reached.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-batch-dry-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("label --batch --dry-run in a mixed run", () => {
  it("names the judges that would go online, as the real run does", async () => {
    const judge = (id: string, batch: boolean) => ({ id, model: id, family: `f-${id}`, base_url: "http://127.0.0.1:9/v1", output_mode: "json_object", api_key_env: "FAKE_KEY", ...(batch ? { batch: true } : {}) });
    const cfg = path.join(tmp, "judges.json");
    fs.writeFileSync(cfg, JSON.stringify({ judges: [judge("a", true), judge("b", false)] }));
    const args = ["label", SAMPLES, "--judges", cfg, "--batch", "--dry-run", "--run", "mixed", "--labels-dir", tmp, "--limit", "2"];
    const r = await runCli(args, { env: { FAKE_KEY: "x" } });
    expect(r.code, r.stderr).toBe(0);
    expect(unwrapText(r.stderr)).toMatch(/ipi-judge: warning: --batch: judge "b" \(base_url http:\/\/127\.0\.0\.1:9\/v1[^)]*\) cannot use the Batch API .*: its requests are sent online/);
    expect(unwrapText(r.stderr)).not.toMatch(/judge "a"/);
    // without --batch: no such warning
    const plain = await runCli(args.filter((a) => a !== "--batch"), { env: { FAKE_KEY: "x" } });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).not.toMatch(/--batch:/);
  }, 60_000);
});
