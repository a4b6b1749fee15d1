/**
 * Evaluate the signature judge against AgentDojo's own security checker.
 *
 * Usage: npx tsx scripts/eval-signature.ts <dir or file>... [--by attack|model|suite|injection] [--list N]
 *        [--verbose] [--jsonl OUT] [--skip-attack REGEX]
 *
 * `--skip-attack dos` leaves out AgentDojo's denial-of-service attacks, whose `security` is defined as
 * "the user task failed" (security = !utility), not as an injected goal being achieved.
 *
 * Over the attacked runs that did not end in an error and carry `reference.security`, it compares
 * `label == full_compliance` with `security` (true = the injected goal was achieved): prints the 2x2
 * confusion matrix, Cohen's kappa (po - pe) / (1 - pe) (Cohen 1960; null when pe = 1), the label
 * distribution, how many quotes failed verification, and lists the disagreements (up to --list, default 60).
 */
import { writeFileSync } from "node:fs";
import { readTrajectories } from "../src/ingest/index.js";
import { analyze } from "../src/judges/signature/analyze.js";
import { replyFromAnalysis } from "../src/judges/signature.js";
import { evidenceContext } from "../src/evidence/verify.js";
import { decide } from "../src/verdict/decide.js";
import type { Trajectory } from "../src/types.js";

interface Row {
  id: string;
  attack: string;
  model: string;
  suite: string;
  injection: string;
  security: boolean;
  label: string;
  claimed: string;
  failedQuotes: number;
  detail: string;
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

function matrix(rows: Row[]): { tp: number; fp: number; fn: number; tn: number; k: number | null } {
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

function fmtK(k: number | null): string {
  return k === null ? "null" : k.toFixed(4);
}

function describe(t: Trajectory): string {
  const a = analyze(t);
  const out: string[] = [];
  out.push(`exposure=${a.exposure?.message_index ?? "none"}`);
  out.push(
    `values=[${a.values
      .map((v) => `${v.kind}:${v.forms[0]}${v.strong ? "!" : ""}${v.inUser ? "(user)" : ""}${v.envKnown ? "(env)" : ""}`)
      .join(", ")}]`,
  );
  for (const s of a.steps) {
    out.push(
      `  step ${s.step.cls}${s.required ? "" : "(opt)"} ${s.status} "${s.step.text.replace(/\s+/g, " ").slice(0, 90)}" calls=[${s.calls
        .map((c) => `${c.name}${c.error ? "(err)" : ""}`)
        .join(",")}]${s.why.length ? ` why=[${s.why.join("; ")}]` : ""}`,
    );
  }
  if (a.haltGoal) out.push(`  halt goal, halted=${a.halted}`);
  const calls = t.messages
    .filter((m) => m.role === "assistant" && m.index > (a.exposure?.message_index ?? 1e9))
    .flatMap((m) => (m.tool_calls ?? []).map((c) => `${c.name}(${c.arguments.slice(0, 140)})`));
  out.push(`  later calls: ${calls.join(" ; ").slice(0, 900)}`);
  const last = [...t.messages].reverse().find((m) => m.role === "assistant" && m.text.trim());
  if (last) out.push(`  last text: ${last.text.replace(/\s+/g, " ").slice(0, 300)}`);
  return out.join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const paths: string[] = [];
  let by: string | undefined;
  let list = 60;
  let verbose = false;
  let jsonl: string | undefined;
  let skipAttack: RegExp | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--by") by = args[++i];
    else if (a === "--list") list = Number(args[++i]);
    else if (a === "--verbose") verbose = true;
    else if (a === "--jsonl") jsonl = args[++i];
    else if (a === "--skip-attack") skipAttack = new RegExp(args[++i]);
    else paths.push(a);
  }
  if (paths.length === 0) {
    console.error("usage: npx tsx scripts/eval-signature.ts <dir>... [--by attack|model|suite|injection] [--list N] [--verbose]");
    process.exit(2);
  }
  const rows: Row[] = [];
  const labels = new Map<string, number>();
  let errors = 0;
  let skipped = 0;
  let failedQuotes = 0;
  let quotes = 0;
  const trajectories = new Map<string, Trajectory>();
  const t0 = Date.now();
  for await (const item of readTrajectories(paths)) {
    if (item.kind === "error") {
      errors++;
      continue;
    }
    const t = item.trajectory;
    const attacked = Object.keys(t.injections ?? {}).length > 0 && !!t.attack;
    const a = analyze(t);
    const reply = replyFromAnalysis(a);
    const d = decide(reply, evidenceContext(t));
    let failed = 0;
    for (const f of d.findings)
      for (const q of f.evidence) {
        if (f.bucket === "not_exposed") continue;
        quotes++;
        if (!q.verified) failed++;
      }
    failedQuotes += failed;
    labels.set(d.label, (labels.get(d.label) ?? 0) + 1);
    if (!attacked || t.run_error || typeof t.reference?.security !== "boolean" || skipAttack?.test(t.attack ?? "")) {
      skipped++;
      continue;
    }
    const model = t.agent_model ?? "?";
    rows.push({
      id: t.id,
      attack: t.attack ?? "none",
      model,
      suite: t.suite ?? "?",
      injection: `${t.suite}/${t.injection_task_id}`,
      security: t.reference.security,
      label: d.label,
      claimed: reply.label,
      failedQuotes: failed,
      detail: "",
    });
    if (verbose) trajectories.set(t.id, t);
  }
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const m = matrix(rows);
  console.log(`runs judged: ${rows.length + skipped} (${rows.length} attacked, non-error, with security${skipAttack ? `, attack not /${skipAttack.source}/` : ""}; ${skipped} others), ingest errors ${errors}, ${secs}s`);
  console.log(`labels (all runs): ${[...labels].map(([k, v]) => `${k}=${v}`).join(" ")}`);
  console.log(`quotes: ${quotes}, failed verification: ${failedQuotes}`);
  console.log("");
  console.log("                      security=true  security=false");
  console.log(`full_compliance       ${String(m.tp).padStart(13)}  ${String(m.fp).padStart(14)}`);
  console.log(`not full_compliance   ${String(m.fn).padStart(13)}  ${String(m.tn).padStart(14)}`);
  console.log(`Cohen's kappa: ${fmtK(m.k)}   agreement: ${((m.tp + m.tn) / Math.max(1, rows.length)).toFixed(4)}`);
  if (by) {
    console.log(`\nby ${by}:`);
    const groups = new Map<string, Row[]>();
    for (const r of rows) {
      const k = (r as unknown as Record<string, string>)[by] ?? "?";
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k)!.push(r);
    }
    for (const [k, g] of [...groups].sort()) {
      const gm = matrix(g);
      console.log(`  ${k.padEnd(50)} n=${String(g.length).padStart(5)} tp=${gm.tp} fp=${gm.fp} fn=${gm.fn} tn=${gm.tn} kappa=${fmtK(gm.k)}`);
    }
  }
  const dis = rows.filter((r) => (r.label === "full_compliance") !== r.security);
  console.log(`\ndisagreements: ${dis.length} (showing ${Math.min(list, dis.length)})`);
  for (const r of dis.slice(0, list)) {
    console.log(`- ${r.security ? "FN" : "FP"} ${r.id} label=${r.label}${r.failedQuotes ? ` failedQuotes=${r.failedQuotes}` : ""}`);
    const t = trajectories.get(r.id);
    if (t) console.log(describe(t));
  }
  if (jsonl) writeFileSync(jsonl, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
