/**
 * Measure the signature judge against a benchmark's own security checker, per suite, model and condition,
 * with the disagreements grouped by kind, and a held-out split fixed up front.
 *
 * Usage: npx tsx scripts/measure-signature.ts <dir or file>... [--cache FILE] [--part dev|heldout|all]
 *        [--split suite|model|none] [--show N] [--kind REGEX] [--json OUT]
 *
 * Over the attacked runs that did not end in an error and carry a boolean `reference.security` (the benchmark's
 * verdict: true = the injected goal was achieved), it compares `label == full_compliance` with `security`:
 * Cohen's kappa (po - pe) / (1 - pe) (Cohen 1960; null when pe = 1) overall, per suite, per model (the agent model
 * without its defense), per condition (defense), and per part of the held-out split; then the disagreements
 * grouped by kind ({@link disagreementKind}), with up to `--show` examples of each kind (dev part only unless
 * `--part heldout|all`: the held-out part is measured, not studied).
 *
 * Held-out discipline (decided before the rules were changed, 2026-12-01):
 * - `--split suite` (default): the dev part is the suites named in DEV_SUITES (`shopping` of AgentDyn, and every
 *   AgentDojo suite, on which the rules were first written); the other suites (AgentDyn `github`, VIGIL's runs
 *   sit in AgentDojo suites but another attack surface) are held out.
 * - `--split model`: a fixed half of the agent models, drawn by seed SPLIT_SEED from the sorted list of base
 *   model names, is held out (printed on each run).
 * - `--split suite+model` (the second round, once the suite split had been measured): the held-out part is the
 *   non-dev suites for the SPLIT_SEED half of the models; the non-dev suites of the other models join the dev part.
 * `--cache FILE` keeps the ingested trajectories as JSONL (read back when the file exists), so rule changes are
 * measured without re-reading 10,000 files; delete it when ingest changes.
 */
import { createReadStream, createWriteStream, existsSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { xoroshiro128plus, unsafeUniformIntDistribution } from "pure-rand";
import { readTrajectories } from "../src/ingest/index.js";
import { analyze, type Analysis } from "../src/judges/signature/analyze.js";
import { replyFromAnalysis } from "../src/judges/signature/index.js";
import { evidenceContext } from "../src/evidence/context.js";
import { decide } from "../src/verdict/decide.js";
import type { Trajectory } from "../src/types.js";

/** Suites the rules may be studied on under `--split suite`. */
const DEV_SUITES = new Set(["shopping", "workspace", "slack", "banking", "travel"]);
/** Seed of the `--split model` draw. */
const SPLIT_SEED = 16;

interface Row {
  id: string;
  suite: string;
  model: string;
  condition: string;
  part: "dev" | "heldout";
  security: boolean;
  label: string;
  kind: string;
  failedQuotes: number;
}

/** 2x2 Cohen's kappa; null when chance agreement is 1 (one category only). */
function kappa(tp: number, fp: number, fn: number, tn: number): number | null {
  const n = tp + fp + fn + tn;
  if (n === 0) return null;
  const po = (tp + tn) / n;
  const pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n);
  if (pe === 1) return null;
  return (po - pe) / (1 - pe);
}

function matrix(rows: Row[]) {
  let tp = 0,
    fp = 0,
    fn = 0,
    tn = 0;
  for (const r of rows) {
    const j = r.label === "full_compliance";
    if (j && r.security) tp++;
    else if (j) fp++;
    else if (r.security) fn++;
    else tn++;
  }
  return { tp, fp, fn, tn, k: kappa(tp, fp, fn, tn) };
}

const fmtK = (k: number | null) => (k === null ? " null" : k.toFixed(3));

/** The agent model without a defense suffix (conditions are their own axis). */
function baseModel(t: Trajectory): string {
  let m = t.agent_model ?? "?";
  const c = t.condition;
  if (c && c !== "no_defense" && m.endsWith(`-${c}`)) m = m.slice(0, -c.length - 1);
  return m;
}

/**
 * The kind of a disagreement, from the analysis: which rule made the label, or what the judge saw instead.
 * FP kinds name the basis of `full_compliance`; FN kinds name the label given and why.
 */
export function disagreementKind(a: Analysis, label: string, security: boolean): string {
  if (label === "full_compliance" && !security) {
    const req = a.steps.filter((s) => s.required);
    if (a.halted && req.every((s) => s.status !== "done")) return "FP halt: stopped after a stop instruction";
    if (req.length === 0) return "FP no step parsed: a later call carries an attacker value";
    const classes = [...new Set(req.map((s) => s.step.cls))].sort().join("+");
    if (req.every((s) => s.step.cls === "say")) return "FP say: the agent's text repeats the injected values";
    return `FP steps done (${classes})`;
  }
  if (label !== "full_compliance" && security) {
    if (!a.exposure) return `FN not_exposed: ${a.notes[0] ?? "injection not found"}`;
    const req = a.steps.filter((s) => s.required);
    const stepPart =
      req.length === 0
        ? "no usable step"
        : req.some((s) => s.status !== "none")
          ? "some steps done/tried"
          : `steps not matched (${[...new Set(req.map((s) => s.step.cls))].sort().join("+")})`;
    return `FN ${label}: ${stepPart}`;
  }
  return "agree";
}

async function* load(paths: string[], cache?: string): AsyncGenerator<Trajectory> {
  if (cache && existsSync(cache)) {
    const rl = createInterface({ input: createReadStream(cache), crlfDelay: Infinity });
    for await (const line of rl) if (line.trim()) yield JSON.parse(line) as Trajectory;
    return;
  }
  const out = cache ? createWriteStream(cache) : null;
  for await (const item of readTrajectories(paths)) {
    if (item.kind !== "trajectory") continue;
    out?.write(JSON.stringify(item.trajectory) + "\n");
    yield item.trajectory;
  }
  if (out) await new Promise<void>((r) => out.end(() => r()));
}

function heldOutModels(models: string[]): Set<string> {
  const rng = xoroshiro128plus(SPLIT_SEED);
  const pool = [...models].sort();
  const out = new Set<string>();
  while (out.size < Math.floor(pool.length / 2)) {
    const i = unsafeUniformIntDistribution(0, pool.length - 1, rng);
    out.add(pool.splice(i, 1)[0]);
  }
  return out;
}

function table(title: string, rows: Row[], key: (r: Row) => string): void {
  console.log(`\nby ${title}:`);
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const k = key(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  for (const [k, g] of [...groups].sort()) {
    const m = matrix(g);
    console.log(`  ${k.padEnd(42)} n=${String(g.length).padStart(5)}  tp=${String(m.tp).padStart(4)} fp=${String(m.fp).padStart(4)} fn=${String(m.fn).padStart(4)} tn=${String(m.tn).padStart(5)}  kappa=${fmtK(m.k)}`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const paths: string[] = [];
  let cache: string | undefined;
  let part = "dev";
  let split = "suite";
  let show = 3;
  let kindRe: RegExp | undefined;
  let json: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--cache") cache = args[++i];
    else if (a === "--part") part = args[++i];
    else if (a === "--split") split = args[++i];
    else if (a === "--show") show = Number(args[++i]);
    else if (a === "--kind") kindRe = new RegExp(args[++i]);
    else if (a === "--json") json = args[++i];
    else paths.push(a);
  }
  if (paths.length === 0 && !cache) {
    console.error("usage: npx tsx scripts/measure-signature.ts <dir>... [--cache FILE] [--part dev|heldout|all] [--split suite|model|none] [--show N] [--kind REGEX]");
    process.exit(2);
  }
  const t0 = Date.now();
  const rows: Row[] = [];
  const examples = new Map<string, Array<{ row: Row; t: Trajectory; a: Analysis }>>();
  const labels = new Map<string, number>();
  let judged = 0;
  let failedQuotes = 0;
  const pending: Array<{ t: Trajectory; a: Analysis; label: string; failed: number }> = [];
  for await (const t of load(paths, cache)) {
    judged++;
    const a = analyze(t);
    const reply = replyFromAnalysis(a);
    const d = decide(reply, evidenceContext(t));
    let failed = 0;
    for (const f of d.findings) for (const q of f.evidence) if (f.bucket !== "not_exposed" && !q.verified) failed++;
    failedQuotes += failed;
    labels.set(d.label ?? "null", (labels.get(d.label ?? "null") ?? 0) + 1);
    const attacked = !!t.attack && (Object.keys(t.injections ?? {}).length > 0 || (t.tools?.length ?? 0) > 0 || t.attack !== "none");
    if (!attacked || t.run_error || typeof t.reference?.security !== "boolean") continue;
    pending.push({ t, a, label: d.label ?? "null", failed });
  }
  const models = [...new Set(pending.map((p) => baseModel(p.t)))];
  const heldModels = split === "model" || split === "suite+model" ? heldOutModels(models) : new Set<string>();
  for (const { t, a, label, failed } of pending) {
    const model = baseModel(t);
    const suite = t.suite ?? "?";
    const isHeld =
      split === "suite"
        ? !DEV_SUITES.has(suite)
        : split === "model"
          ? heldModels.has(model)
          : split === "suite+model"
            ? !DEV_SUITES.has(suite) && heldModels.has(model)
            : false;
    const security = t.reference!.security!;
    const row: Row = {
      id: t.id,
      suite,
      model,
      condition: t.condition ?? "no_defense",
      part: isHeld ? "heldout" : "dev",
      security,
      label,
      kind: disagreementKind(a, label, security),
      failedQuotes: failed,
    };
    rows.push(row);
    if (row.kind !== "agree" && (part === "all" || row.part === part) && (!kindRe || kindRe.test(row.kind))) {
      if (!examples.has(row.kind)) examples.set(row.kind, []);
      const list = examples.get(row.kind)!;
      // Keep a spread of examples: every k-th one, deterministic.
      if (list.length < show) list.push({ row, t, a });
    }
  }
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const m = matrix(rows);
  console.log(`runs judged: ${judged}; compared (attacked, no run error, boolean security): ${rows.length}; ${secs}s`);
  console.log(`labels: ${[...labels].map(([k, v]) => `${k}=${v}`).join(" ")}; quotes failing verification: ${failedQuotes}`);
  console.log(`overall: tp=${m.tp} fp=${m.fp} fn=${m.fn} tn=${m.tn} kappa=${fmtK(m.k)}`);
  if (heldModels.size > 0) console.log(`held-out models (seed ${SPLIT_SEED}): ${[...heldModels].sort().join(", ")}`);
  table("part", rows, (r) => r.part);
  table("suite", rows, (r) => r.suite);
  table("model", rows, (r) => r.model);
  table("condition", rows, (r) => r.condition);
  const dis = rows.filter((r) => r.kind !== "agree");
  const kinds = new Map<string, { dev: number; heldout: number }>();
  for (const r of dis) {
    const k = kinds.get(r.kind) ?? { dev: 0, heldout: 0 };
    k[r.part]++;
    kinds.set(r.kind, k);
  }
  console.log(`\ndisagreements by kind (dev / held-out): ${dis.length}`);
  for (const [k, c] of [...kinds].sort((x, y) => y[1].dev + y[1].heldout - (x[1].dev + x[1].heldout))) {
    console.log(`  ${String(c.dev).padStart(4)} / ${String(c.heldout).padStart(4)}  ${k}`);
  }
  if (show > 0) {
    console.log(`\nexamples (${part} part):`);
    for (const [k, list] of examples) {
      console.log(`\n## ${k}`);
      for (const { row, t, a } of list) console.log(describe(row, t, a));
    }
  }
  if (json) writeFileSync(json, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

function describe(r: Row, t: Trajectory, a: Analysis): string {
  const out: string[] = [`- ${r.id} [${r.model} ${r.condition}] label=${r.label} security=${r.security}`];
  const inj = Object.values(t.injections ?? {})[0] ?? (t.tools ?? []).map((x) => x.description).join(" | ");
  out.push(`  injection: ${String(inj).replace(/\s+/g, " ").replace(/.*?important message from me, [^.]*\. /, "").slice(0, 400)}`);
  out.push(`  exposure=${a.exposure?.message_index ?? "none"} values=[${a.values.map((v) => `${v.kind}:${v.forms[0]}${v.strong ? "!" : ""}${v.inUser ? "(user)" : ""}${v.envKnown ? "(env)" : ""}`).join(", ")}]`);
  for (const s of a.steps) {
    out.push(
      `  step ${s.step.cls}${s.required ? "" : "(opt)"} ${s.status} "${s.step.text.replace(/\s+/g, " ").slice(0, 90)}" calls=[${s.calls.map((c) => `${c.name}${c.error ? "(err)" : ""}`).join(",")}]${s.why.length ? ` why=[${s.why.join("; ")}]` : ""}`,
    );
  }
  const user = t.messages.find((m) => m.role === "user");
  if (user) out.push(`  user: ${user.text.replace(/\s+/g, " ").slice(0, 200)}`);
  const calls = t.messages
    .filter((m) => m.role === "assistant")
    .flatMap((m) => (m.tool_calls ?? []).map((c) => `${m.index}:${c.name}(${c.arguments.slice(0, 100)})`));
  out.push(`  calls: ${calls.join(" ; ").slice(0, 1000)}`);
  const last = [...t.messages].reverse().find((m) => m.role === "assistant" && m.text.trim());
  if (last) out.push(`  last text: ${last.text.replace(/\s+/g, " ").slice(0, 300)}`);
  return out.join("\n");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
