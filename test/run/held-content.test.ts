/**
 * Two input folders whose names were swapped (same content, each at the other's paths), through the built CLI with an
 * LLM judge on 127.0.0.1 that counts its requests (recover42): the resume judged every trajectory of both folders
 * again (paid again) because each content's stored id still had a file, holding the other content now. Now the stored
 * verdicts of the same content are carried (`carried_from`, no request), each id ends with the verdicts of the content
 * its file holds now, and a trajectory whose content differs is judged, never carried.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";

const MODEL = "gemini-1.5-pro-001";
let tmp: string;
let fake: FakeOpenAI;
let judges: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-held-content-"));
  // a reply that differs by folder: the "(other)" copies get another rationale, so a verdict shows which content it judged
  fake = await startFakeOpenAI((req) => {
    const text = (req.body?.messages as Array<{ content: string }>).map((m) => m.content).join("\n");
    return completion(JSON.stringify({ findings: [], label: "unaffected", rationale: text.includes("(other)") ? "judged the other copy" : "judged the original" }));
  });
  judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ retries: 1, judges: [{ id: "llm", model: "fake-model", family: "openai", base_url: fake.url, concurrency: 4, output_mode: "json_object" }] }));
});
afterAll(async () => {
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const files = (dir: string) => fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json"));

/** `runs/<MODEL>` (the vendored sample) and `runs/other` (the same runs, each user message changed): labelled once. */
async function twoFolders(name: string) {
  const w = path.join(tmp, name);
  fs.cpSync(path.join(SAMPLES, "runs", MODEL), path.join(w, "runs", MODEL), { recursive: true });
  const other = path.join(w, "runs", "other");
  fs.cpSync(path.join(w, "runs", MODEL), other, { recursive: true });
  for (const f of files(other)) {
    const j = JSON.parse(fs.readFileSync(path.join(other, f), "utf8"));
    const m = j.messages.find((x: { role: string }) => x.role === "user");
    if (typeof m.content === "string") m.content += " (other)";
    else m.content = [...(m.content ?? []), { type: "text", content: " (other)" }];
    fs.writeFileSync(path.join(other, f), JSON.stringify(j));
  }
  const cli = async (args: string[]) => {
    const r = await runCli([...args, "--run", "r", "--labels-dir", "L"], { cwd: w });
    expect([0, 3], r.stderr).toContain(r.code);
    return r;
  };
  const label = async () => JSON.parse((await cli(["label", "runs", "--judges", judges, "--json"])).stdout);
  const first = await label();
  const n = files(other).length;
  expect(first.trajectories).toBe(2 * n);
  return { w, cli, label, n, first };
}

const verdicts = (w: string) =>
  fs.readFileSync(path.join(w, "L", "r", "verdicts.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown> & { trajectory_id: string });
const rows = (w: string) => new Map(fs.readFileSync(path.join(w, "L", "r", "trajectories.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l)).map((r) => [r.id as string, r]));
/** The current verdict of each id (the last stored). */
const current = (w: string) => new Map(verdicts(w).map((v) => [v.trajectory_id, v]));

function swap(w: string): void {
  fs.renameSync(path.join(w, "runs", "other"), path.join(w, "runs", "tmp"));
  fs.renameSync(path.join(w, "runs", MODEL), path.join(w, "runs", "other"));
  fs.renameSync(path.join(w, "runs", "tmp"), path.join(w, "runs", MODEL));
}

describe("two input folders swapped", () => {
  it("are carried, not judged again: no request, verdicts with carried_from, each id with the verdicts of the content it holds now", async () => {
    const { w, cli, label, n, first } = await twoFolders("swap");
    const paid = fake.requests.length;
    expect(paid).toBeGreaterThanOrEqual(2 * n);
    const before = current(w);
    const compareBefore = JSON.parse((await cli(["compare", "--json"])).stdout).n_observations;
    swap(w);
    const again = await label();
    expect(fake.requests.length - paid).toBe(0); // before (recover42): 2n requests, every trajectory paid again
    expect(again.this_run.judged).toBe(0);
    expect(again.trajectories).toBe(2 * n);
    expect(again.attacked).toBe(first.attacked);
    const moved = again.warnings.find((x: string) => x.startsWith("moved "));
    expect(moved).toContain(`moved ${2 * n} trajectories: verdicts carried over (${2 * n} verdicts, no judge call)`);
    expect(moved).toContain(`${2 * n} of them from an id whose file is still there but holds other content now (folders swapped or renamed onto each other)`);
    expect(moved).not.toContain("input_removed");
    // each id: its current verdict is the one the other path's id had, made on the content its file holds now
    const now = current(w);
    const index = rows(w);
    expect(now.size).toBe(2 * n);
    for (const [id, v] of now) {
      const from = id.startsWith("other/") ? `${MODEL}/${id.slice("other/".length)}` : `other/${id.slice(MODEL.length + 1)}`;
      expect(v).toMatchObject({ carried_from: from, cost_usd: 0, content_sha256: before.get(from)!.content_sha256, label: before.get(from)!.label, rationale: before.get(from)!.rationale });
      expect(v.content_sha256).toBe(index.get(id).content_sha256);
      expect(v.rationale).toContain(id.startsWith("other/") ? "judged the original" : "judged the other copy");
    }
    // the figures count each trajectory once, as before the swap
    const compare = JSON.parse((await cli(["compare", "--json"])).stdout);
    expect(compare.n_observations).toBe(compareBefore);
    expect(compare.warnings.join("\n")).not.toContain("same_content");
    // a further resume: nothing sent, nothing carried again
    const third = await label();
    expect(fake.requests.length - paid).toBe(0);
    expect(third.warnings.join("\n")).not.toMatch(/^moved /m);
  }, 300_000);

  it("a trajectory whose content differs after the swap is judged (paid once), never carried", async () => {
    const { w, label, n } = await twoFolders("swap-edit");
    swap(w);
    // one file of the folder now named "other" edited: no stored verdict is of its content
    const f = files(path.join(w, "runs", "other")).sort()[0];
    const file = path.join(w, "runs", "other", f);
    const j = JSON.parse(fs.readFileSync(file, "utf8"));
    const m = j.messages.find((x: { role: string }) => x.role === "user");
    if (typeof m.content === "string") m.content += " (edited)";
    else m.content = [...(m.content ?? []), { type: "text", content: " (edited)" }];
    fs.writeFileSync(file, JSON.stringify(j));
    const paid = fake.requests.length;
    const again = await label();
    expect(again.this_run.judged).toBe(1);
    expect(fake.requests.length - paid).toBe(1);
    const edited = `other/${f.replace(/\.json$/, "")}`;
    const v = current(w).get(edited)!;
    expect(v).toBeDefined();
    expect(v.carried_from).toBeUndefined();
    expect(v.content_sha256).toBe(rows(w).get(edited).content_sha256);
    expect(again.warnings.find((x: string) => x.startsWith("moved "))).toContain(`moved ${2 * n - 1} trajectories`);
  }, 300_000);
});
