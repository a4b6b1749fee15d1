/**
 * Measure the signature judge against a benchmark's own security checker with the code `ipi-judge agree --reference
 * security` runs, per corpus (the "Measured" table of docs/measured.md) and per suite, model and condition, with the
 * disagreements grouped by kind and a held-out split fixed up front.
 *
 * Usage: npx tsx scripts/measure-signature.ts NAME=PATH [NAME=PATH ...] [--labels-dir DIR] [--split suite|model|suite+model|none]
 *        [--by suite,model,condition,attack,dos,part] [--show N] [--markdown] [--json OUT]
 *
 * For each corpus it runs `labelRun` with the default signature judge into `<labels-dir>/<NAME>` (default labels dir
 * `/tmp/ipi-measure-signature`; a second invocation resumes and judges nothing again, so the run folder is the
 * cache), reads the run back (`readVerdicts`, `readTrajectoryIndex`) and calls `referenceAgreement` (src/agree/
 * reference.ts), the function behind `agree --reference security`: so "used", the confusion table and both kappas
 * are `agree`'s own, on the same items (attacked runs without a run error, with a boolean `security` and a label;
 * unlabelled runs are excluded, never counted as negatives).
 * - goal kappa: Cohen's kappa (Cohen 1960) of `label == full_compliance` vs `security` (the goal ASR's kappa:
 *   `referenceAgreement(...).kappa`);
 * - behaviour kappa: the binary collapse (compromised = full or partial compliance) vs `security`
 *   (`referenceAgreement(...).binary.kappa`); null with the reason when undefined (one category only).
 * - coverage = labelled / attacked (attacked = the run index's `attacked`; labelled = an `ok` verdict with a label),
 *   with the most common reason among the unlabelled.
 * Breakdowns (`--by`) call `referenceAgreement` on the index restricted to each group.
 *
 * Held-out discipline (decided before the rules were changed, 2026-12-01):
 * - `--split suite` (default): the dev part is the suites named in DEV_SUITES (`shopping` of AgentDyn, and every
 *   AgentDojo suite, on which the rules were first written); the other suites (AgentDyn `github`) are held out.
 * - `--split model`: a fixed half of the agent models, drawn by seed SPLIT_SEED from the sorted list of base model
 *   names, is held out (printed on each run).
 * - `--split suite+model` (the second round): the held-out part is the non-dev suites for the SPLIT_SEED half of the
 *   models; the non-dev suites of the other models join the dev part.
 * `--show N` prints up to N example ids of each disagreement kind with the verdict's rationale (dev part only
 * unless `--split none`: the held-out part is measured, not studied).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { xoroshiro128plus, unsafeUniformIntDistribution } from "pure-rand";
import { referenceAgreement, type ReferenceAgreement } from "../src/agree/reference.js";
import { createSignatureJudge } from "../src/judges/signature/index.js";
import { labelRun } from "../src/run/label.js";
import { readTrajectoryIndex, readVerdicts, type TrajectoryIndexRow } from "../src/store/run-store.js";
import type { Verdict } from "../src/types.js";

/** Suites the rules may be studied on under `--split suite`. */
const DEV_SUITES = new Set(["shopping", "workspace", "slack", "banking", "travel"]);
/** Seed of the `--split model` draw. */
const SPLIT_SEED = 16;
const JUDGE = "signature";

/** One corpus's figures, as printed and as written by `--json`. */
export interface CorpusFigures {
  corpus: string;
  path: string;
  attacked: number;
  labelled: number;
  /** labelled / attacked; null when nothing is attacked. */
  coverage: number | null;
  /** The most common reason among attacked runs without a label (verdict error kind, or `no_verdict`). */
  unlabelled_reasons: Record<string, number>;
  /** `referenceAgreement` (agree --reference security) over the corpus. */
  agreement: ReferenceAgreement;
}

/** The agent model without a defense suffix (conditions are their own axis). */
function baseModel(r: TrajectoryIndexRow): string {
  let m = r.agent_model ?? "?";
  const c = r.condition;
  if (c && c !== "no_defense" && m.endsWith(`-${c}`)) m = m.slice(0, -c.length - 1);
  return m;
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

const fmtK = (k: number | null, reason?: string) => (k === null ? `null (${reason ?? "undefined"})` : k.toFixed(3));
const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
const int = (n: number) => n.toLocaleString("en-US");

/** Coverage of one judge over the attacked rows of an index. */
function coverage(index: Map<string, TrajectoryIndexRow>, byId: Map<string, Verdict>) {
  let attacked = 0;
  let labelled = 0;
  const reasons: Record<string, number> = {};
  for (const r of index.values()) {
    if (!r.attacked) continue;
    attacked++;
    const v = byId.get(r.id);
    if (v && v.status === "ok" && v.label) labelled++;
    else {
      const why = !v ? "no_verdict" : (v.error?.kind ?? v.status);
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
  }
  return { attacked, labelled, coverage: attacked > 0 ? labelled / attacked : null, reasons };
}

function line(title: string, a: ReferenceAgreement): string {
  const [[tp, fp], [fn, tn]] = a.confusion.table;
  return `  ${title.padEnd(42)} used=${String(a.n_used).padStart(6)}  tp=${String(tp).padStart(4)} fp=${String(fp).padStart(4)} fn=${String(fn).padStart(4)} tn=${String(tn).padStart(5)}  goal kappa=${fmtK(a.kappa, a.kappa_reason)}  behaviour kappa=${fmtK(a.binary.kappa, a.binary.kappa_reason)}`;
}

async function measure(name: string, input: string, labelsDir: string): Promise<{ fig: CorpusFigures; verdicts: Verdict[]; index: Map<string, TrajectoryIndexRow> }> {
  await labelRun({ inputs: [input], judges: [createSignatureJudge()], labelsDir, run: name });
  const runDir = path.join(labelsDir, name);
  const [verdicts, index] = await Promise.all([readVerdicts(runDir), readTrajectoryIndex(runDir)]);
  const agreement = referenceAgreement(JUDGE, verdicts, index, "security");
  const byId = new Map<string, Verdict>();
  for (const v of verdicts) if (v.judge_id === JUDGE && v.repeat === 0) byId.set(v.trajectory_id, v);
  const c = coverage(index, byId);
  return {
    fig: { corpus: name, path: input, attacked: c.attacked, labelled: c.labelled, coverage: c.coverage, unlabelled_reasons: c.reasons, agreement },
    verdicts,
    index,
  };
}

function topReason(reasons: Record<string, number>): string {
  const top = Object.entries(reasons).sort((a, b) => b[1] - a[1])[0];
  return top ? `${top[0]} ${int(top[1])}` : "";
}

/** docs/measured.md's table: one row per corpus. */
function markdown(figs: CorpusFigures[]): string {
  const out = [
    "| corpus | attacked | labelled (coverage) | used | TP | FP | FN | TN | goal kappa (`full_compliance` vs `security`) | behaviour kappa (compromised vs `security`) |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const f of figs) {
    const a = f.agreement;
    const [[tp, fp], [fn, tn]] = a.confusion.table;
    const cov = `${int(f.labelled)} (${pct(f.coverage)}${f.coverage !== null && f.coverage < 0.8 ? `, low: unlabelled mostly ${topReason(f.unlabelled_reasons)}` : ""})`;
    out.push(
      `| ${f.corpus} | ${int(f.attacked)} | ${cov} | ${int(a.n_used)} | ${int(tp)} | ${int(fp)} | ${int(fn)} | ${int(tn)} | ${a.kappa === null ? `undefined (${a.kappa_reason})` : `**${a.kappa.toFixed(3)}**`} | ${a.binary.kappa === null ? `undefined (${a.binary.kappa_reason})` : a.binary.kappa.toFixed(3)} |`,
    );
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const corpora: Array<[string, string]> = [];
  let labelsDir = "/tmp/ipi-measure-signature";
  let split = "suite";
  let by = ["suite", "model", "condition", "part"];
  let show = 0;
  let md = false;
  let json: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--labels-dir") labelsDir = args[++i];
    else if (a === "--split") split = args[++i];
    else if (a === "--by") by = args[++i].split(",").filter(Boolean);
    else if (a === "--show") show = Number(args[++i]);
    else if (a === "--markdown") md = true;
    else if (a === "--json") json = args[++i];
    else if (/^[\w.-]+=/.test(a)) corpora.push([a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]);
    else {
      console.error(`unknown argument ${JSON.stringify(a)}`);
      process.exit(2);
    }
  }
  if (corpora.length === 0) {
    console.error(
      "usage: npx tsx scripts/measure-signature.ts NAME=PATH... [--labels-dir DIR] [--split suite|model|suite+model|none] [--by suite,model,condition,attack,dos,part] [--show N] [--markdown] [--json OUT]",
    );
    process.exit(2);
  }
  const figs: CorpusFigures[] = [];
  for (const [name, input] of corpora) {
    const t0 = Date.now();
    const { fig, verdicts, index } = await measure(name, input, labelsDir);
    figs.push(fig);
    const a = fig.agreement;
    console.log(`\n== ${name} (${input}; ${((Date.now() - t0) / 1000).toFixed(1)}s; run ${path.join(labelsDir, name)})`);
    console.log(
      `attacked ${int(fig.attacked)}, labelled ${int(fig.labelled)} (coverage ${pct(fig.coverage)}${Object.keys(fig.unlabelled_reasons).length ? `; unlabelled: ${Object.entries(fig.unlabelled_reasons).map(([k, v]) => `${k} ${int(v)}`).join(", ")}` : ""})`,
    );
    console.log(`excluded from agreement: ${Object.entries(a.excluded).map(([k, v]) => `${k} ${int(v ?? 0)}`).join(", ") || "none"}`);
    console.log(line("all", a));
    // groups: the same function on the index restricted to each group
    const rows = [...index.values()].filter((r) => r.attacked);
    const models = [...new Set(rows.map(baseModel))];
    const held = split === "model" || split === "suite+model" ? heldOutModels(models) : new Set<string>();
    const part = (r: TrajectoryIndexRow): string => {
      const suite = r.suite ?? "?";
      const isHeld =
        split === "suite" ? !DEV_SUITES.has(suite) : split === "model" ? held.has(baseModel(r)) : split === "suite+model" ? !DEV_SUITES.has(suite) && held.has(baseModel(r)) : false;
      return isHeld ? "heldout" : "dev";
    };
    if (held.size > 0) console.log(`held-out models (seed ${SPLIT_SEED}): ${[...held].sort().join(", ")}`);
    const keyOf: Record<string, (r: TrajectoryIndexRow) => string> = {
      suite: (r) => r.suite ?? "?",
      model: baseModel,
      condition: (r) => r.condition ?? "no_defense",
      attack: (r) => r.attack ?? "(none)",
      // AgentDojo's dos and *_dos attacks: there `security` = not utility, not an injected goal
      dos: (r) => (/(?:^|_)dos$/.test(r.attack ?? "") ? "dos and *_dos attacks" : "other attacks"),
      part,
    };
    for (const field of by) {
      const key = keyOf[field];
      if (!key) continue;
      console.log(`by ${field}:`);
      const groups = new Map<string, Map<string, TrajectoryIndexRow>>();
      for (const r of index.values()) {
        const k = key(r);
        if (!groups.has(k)) groups.set(k, new Map());
        groups.get(k)!.set(r.id, r);
      }
      for (const [k, sub] of [...groups].sort()) if ([...sub.values()].some((r) => r.attacked)) console.log(line(k, referenceAgreement(JUDGE, verdicts, sub, "security")));
    }
    const kinds = a.disagreement_kinds ?? [];
    console.log(`disagreements by kind: ${a.disagreements.length}`);
    for (const k of kinds) console.log(`  ${String(k.count).padStart(5)}  ${k.kind}  (conditions: ${k.by_condition.map((c) => `${c.condition} ${c.count}`).join(", ")}; suites: ${k.by_suite.map((s) => `${s.suite} ${s.count}`).join(", ")})`);
    if (show > 0) {
      const vById = new Map(verdicts.filter((v) => v.judge_id === JUDGE && v.repeat === 0).map((v) => [v.trajectory_id, v]));
      for (const k of kinds) {
        const ids = a.disagreements.filter((d) => `judge ${vById.get(d.trajectory_id)?.label ?? "?"}, reference ${d.reference ? "yes" : "no"}` === k.kind).map((d) => d.trajectory_id);
        const studied = ids.filter((id) => split === "none" || part(index.get(id)!) === "dev").slice(0, show);
        if (studied.length === 0) continue;
        console.log(`\n## ${k.kind}`);
        for (const id of studied) console.log(`- ${id}: ${(vById.get(id)?.rationale ?? "").replace(/\s+/g, " ").slice(0, 500)}`);
      }
    }
  }
  console.log("\n" + (md ? markdown(figs) : figs.map((f) => line(f.corpus, f.agreement) + `  coverage=${pct(f.coverage)}`).join("\n")));
  if (json) writeFileSync(json, JSON.stringify(figs.map((f) => ({ ...f, agreement: { ...f.agreement, disagreements: undefined } })), null, 2) + "\n");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
