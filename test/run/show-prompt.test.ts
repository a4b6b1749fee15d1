/**
 * `label --dry-run --show-prompt ID` (session 52 #4): the messages a judge's first request carries for one trajectory,
 * the same as `label` sends (the nonce of the untrusted blocks aside, drawn afresh per conversation), never a key.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { CORPUS } from "../helpers/paths.js";

const KEY = "sk-show-prompt-never-printed-4242";
const FILE = path.join(CORPUS, "runs", "gpt-4o-2024-05-13", "banking", "user_task_0", "important_instructions", "injection_task_0.json");
const ID = "gpt-4o-2024-05-13/banking/user_task_0/important_instructions/injection_task_0";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-show-prompt-"));
let fake: FakeOpenAI;
let cfg: string;
beforeAll(async () => {
  fake = await startFakeOpenAI([completion("not json")]);
  cfg = path.join(tmp, "j.json");
  fs.writeFileSync(cfg, JSON.stringify({ retries: 0, judges: [{ id: "j", model: "m", family: "openai", base_url: fake.url, api_key_env: "SHOW_PROMPT_KEY" }] }));
});
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});
const env = { SHOW_PROMPT_KEY: KEY };
/** The messages with their nonce (the code of the structural tags, drawn per conversation) replaced by N. */
const unnonced = (ms: Array<{ role: string; content: string }>) => {
  const nonce = /untrusted_trajectory_([0-9a-f]{8,})/.exec(ms.map((m) => m.content).join("\n"))![1]!;
  return ms.map((m) => ({ role: m.role, content: m.content.replaceAll(nonce, "N") }));
};

describe("label --dry-run --show-prompt", () => {
  it("prints the messages label sends for that trajectory, and no key; stores nothing", async () => {
    const shown = await runCli(["label", FILE, "--judges", cfg, "--run", "r", "--labels-dir", tmp, "--dry-run", "--show-prompt", ID, "--json"], { env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout + shown.stderr).not.toContain(KEY);
    expect(fs.existsSync(path.join(tmp, "r"))).toBe(false);
    const r = JSON.parse(shown.stdout) as { id: string; judges: Array<{ judge: string; messages: Array<{ role: string; content: string }> }> };
    expect(r.id).toBe(ID);
    const text = await runCli(["label", FILE, "--judges", cfg, "--run", "r", "--labels-dir", tmp, "--dry-run", "--show-prompt", ID], { env });
    expect(text.stdout).toMatch(/^=== judge j \(m\), trajectory .+: 2 message\(s\) ===\n--- system ---\n/);
    expect(text.stdout).not.toContain(KEY);
    const labelled = await runCli(["label", FILE, "--judges", cfg, "--run", "r", "--labels-dir", tmp], { env });
    expect(labelled.code, labelled.stderr).not.toBe(2);
    const sent = fake.requests[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(unnonced(r.judges[0]!.messages)).toEqual(unnonced(sent));
  });

  it("refuses an id no input holds, and --show-prompt without --dry-run", async () => {
    const none = await runCli(["label", FILE, "--judges", cfg, "--run", "r2", "--labels-dir", tmp, "--dry-run", "--show-prompt", "no/such/id"], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no trajectory of the inputs has id "no/such/id"');
    const alone = await runCli(["label", FILE, "--judges", cfg, "--run", "r2", "--labels-dir", tmp, "--show-prompt", ID], { env });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--show-prompt goes with --dry-run");
  });
});
