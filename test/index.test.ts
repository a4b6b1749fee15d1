/**
 * The package as a user gets it: `npm pack` of the tree (its `dist/` is what `npm test` builds first), the tarball
 * installed into a temporary project (`npm install --offline` from the npm cache `npm ci` filled; `--prefer-offline`
 * when the cache lacks a package), then `import("ipi-judge")` by name there: the main functions exist and work (a
 * kappa, the trajectory reader, the signature judge), the types and the CLI are in the package, and nothing of the
 * repository's tests or build state is.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, SAMPLES } from "./helpers/paths.js";

const run = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
/** One AgentDojo task of the bundled samples (a few runs). */
const TASK_DIR = path.join(SAMPLES, "runs", "gpt-4o-2024-05-13", "workspace", "user_task_5");

let tmp: string;
let project: string;
let tarball: string;
let files: string[];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-pack-"));
  project = path.join(tmp, "user-project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
  // --ignore-scripts: pack the dist/ that pretest built (prepack would rebuild it while other tests run the CLI)
  const packed = await run(NPM, ["pack", "--ignore-scripts", "--json", "--pack-destination", tmp], { cwd: ROOT, maxBuffer: 64 << 20 });
  const info = JSON.parse(packed.stdout)[0] as { filename: string; files: { path: string }[] };
  tarball = path.join(tmp, info.filename);
  files = info.files.map((f) => f.path);
  const install = (mode: string) =>
    run(NPM, ["install", mode, "--no-audit", "--no-fund", "--ignore-scripts", tarball], { cwd: project, maxBuffer: 64 << 20 });
  await install("--offline").catch(() => install("--prefer-offline"));
}, 300_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Run an ES module script in the user project, where "ipi-judge" resolves to the installed tarball. */
async function inProject(script: string): Promise<unknown> {
  const r = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project, maxBuffer: 64 << 20 });
  return JSON.parse(r.stdout);
}

describe("the npm package", () => {
  it("holds the compiled library with its types, prompts and schemas, and no tests or build state", () => {
    for (const f of ["dist/bin/index.js", "dist/index.d.ts", "dist/bin/ipi-judge.js", "dist/view/assets/app.js", "prompts/rubric-v1/system.md", "schemas/judges.schema.json", "package.json", "README.md"]) {
      expect(files, f).toContain(f);
    }
    // README's reference is in docs/: its links resolve in the installed package too
    for (const f of fs.readdirSync(path.join(ROOT, "docs")).filter((n) => n.endsWith(".md"))) expect(files, `docs/${f}`).toContain(`docs/${f}`);
    expect(files.filter((f) => f.startsWith("test/") || f.startsWith("src/") || f.endsWith(".tsbuildinfo"))).toEqual([]);
    // one copy of the code (issue 27): the bundle, not also tsc's modules; no source maps (13 MB before)
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.filter((f) => f.endsWith(".js") && !f.startsWith("dist/bin/") && !f.startsWith("dist/view/assets/"))).toEqual([]);
    // each dependency once: what the bundle holds is not installed beside it (only the tokenizer, loaded by name)
    for (const dep of ["openai", "zod", "commander", "vega"]) expect(fs.existsSync(path.join(project, "node_modules", dep)), dep).toBe(false);
    expect(fs.existsSync(path.join(project, "node_modules", "gpt-tokenizer"))).toBe(true);
    // the bundle copies dependency code: their licences ship beside it
    const notices = fs.readFileSync(path.join(project, "node_modules", "ipi-judge", "dist", "bin", "THIRD-PARTY-NOTICES.txt"), "utf8");
    for (const dep of ["openai", "zod", "commander", "vega"]) expect(notices).toMatch(new RegExp(`^${dep} \\d+\\.\\d+\\.\\d+ \\(`, "m"));
    const pkg = JSON.parse(fs.readFileSync(path.join(project, "node_modules", "ipi-judge", "package.json"), "utf8"));
    for (const p of [pkg.main, pkg.types, pkg.exports["."].import, pkg.exports["."].types, pkg.bin["ipi-judge"]]) {
      expect(fs.existsSync(path.join(project, "node_modules", "ipi-judge", p)), p).toBe(true);
    }
  });

  it('import("ipi-judge") by name: a kappa, the trajectory reader and the signature judge work', async () => {
    const out = (await inProject(`
      const m = await import("ipi-judge");
      const kappa = m.cohenKappa([[40, 9], [6, 45]]);
      const judge = m.createSignatureJudge();
      const read = [];
      for await (const item of m.readTrajectories([${JSON.stringify(TASK_DIR)}])) {
        if (item.kind === "error") { read.push({ error: item.error.message }); continue; }
        const v = await judge.judge(item.trajectory, { repeat: 0 });
        read.push({ id: item.trajectory.id, status: v.status, label: v.label });
      }
      const exported = ["readTrajectories", "createSignatureJudge", "createOpenAIJudge", "loadJudgesConfig", "verifyQuote",
        "labelRun", "RunStore", "cohenKappa", "fleissKappa", "krippendorffAlpha", "committeeReport", "createSample",
        "writeReport", "compareConditions", "renderForJudge"].filter((n) => typeof m[n] !== "function");
      console.log(JSON.stringify({ kappa: kappa.value, read, missing: exported }));
    `)) as { kappa: number; read: { id?: string; status?: string; label?: string; error?: string }[]; missing: string[] };
    // p_o = 0.85, p_e = (49·46 + 51·54)/100² = 0.5008, kappa = 0.3492/0.4992 (Feinstein & Cicchetti's balanced table)
    expect(out.kappa).toBeCloseTo(0.3492 / 0.4992, 10);
    const runs = fs.readdirSync(TASK_DIR, { recursive: true }).filter((f) => String(f).endsWith(".json"));
    expect(out.read).toHaveLength(runs.length);
    for (const r of out.read) {
      expect(r.error).toBeUndefined();
      expect(r.id).toMatch(/^gpt-4o-2024-05-13\/workspace\/user_task_5\//);
      expect(r.status).toBe("ok");
    }
    expect(out.missing).toEqual([]);
  }, 60_000);

  it("installs the ipi-judge command", async () => {
    const bin = path.join(project, "node_modules", ".bin", "ipi-judge");
    const r = await run(bin, ["--help"], { cwd: project });
    expect(r.stdout).toMatch(/label/);
    // the installed command is the bundle: it finds the prompts beside it and judges, and its tokenizer (loaded by name)
    const labels = path.join(project, "labels");
    const lab = await run(bin, ["label", TASK_DIR, "--judge", "signature", "--run", "r", "--labels-dir", labels, "--json"], { cwd: project });
    const summary = JSON.parse(lab.stdout) as { judges: { judge_id: string; verdicts: number }[] };
    expect(summary.judges[0].verdicts).toBeGreaterThan(0);
    const cfg = path.join(project, "judges.json");
    fs.writeFileSync(cfg, JSON.stringify({ judges: [{ id: "j", model: "gpt-4o", family: "openai", base_url: "http://127.0.0.1:9/v1" }] }));
    const dry = await run(bin, ["label", TASK_DIR, "--judges", cfg, "--run", "d", "--labels-dir", labels, "--dry-run", "--json"], { cwd: project });
    const plan = JSON.parse(dry.stdout) as { judges: { id: string; requests: number; tokenizer?: string }[] };
    expect(plan.judges[0].requests).toBeGreaterThan(0);
    expect(plan.judges[0].tokenizer).toBe("o200k_base");
  }, 60_000);
});
