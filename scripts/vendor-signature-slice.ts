/**
 * Choose, by a seeded rule, the small slice of the AgentDyn and VIGIL archives vendored under test/data/ for the
 * signature judge's corpus test (so a fresh clone pins its kappa without ../shared).
 *
 * Usage: npx tsx scripts/vendor-signature-slice.ts <agentdyn dir> <vigil dir> test/data/signature-slice
 *
 * Rule: among run files of at most MAX_BYTES with a boolean `security` and an attack, rank by
 * sha256(SEED + relative path) and take the first AGENTDYN_PER_CLASS with security true and as many with
 * security false (AgentDyn), and the first VIGIL_PER_CLASS VIGIL runs that record `malicious_tool_docstring` and
 * as many that do not, from `runs_base` only (in `debug_run` the recorded docstring names another tool than the one
 * called, and ingest ignores it). Files are copied byte for byte, keeping their relative paths (folders carry model and
 * defense).
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const SEED = "signature-slice-16";
const MAX_BYTES = 9_000;
const AGENTDYN_PER_CLASS = 10;
const VIGIL_PER_CLASS = 3;

function walk(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith(".json") && e.name !== "manifest.json") out.push(p);
  }
  return out;
}

function pick(root: string, per: number, cls: (d: Record<string, unknown>) => boolean | null, skip?: RegExp): string[] {
  const rank = (rel: string) => createHash("sha256").update(SEED + rel).digest("hex");
  const files = walk(root)
    .filter((f) => statSync(f).size <= MAX_BYTES && !skip?.test(path.relative(root, f)))
    .map((f) => ({ f, rel: path.relative(root, f), r: rank(path.relative(root, f)) }))
    .sort((a, b) => (a.r < b.r ? -1 : 1));
  const yes: string[] = [];
  const no: string[] = [];
  for (const { f } of files) {
    const d = JSON.parse(readFileSync(f, "utf8")) as Record<string, unknown>;
    if (!d.attack_type || typeof d.security !== "boolean" || !Array.isArray(d.messages) || d.messages.length === 0) continue;
    const c = cls(d);
    if (c === true && yes.length < per) yes.push(f);
    else if (c === false && no.length < per) no.push(f);
    if (yes.length >= per && no.length >= per) break;
  }
  return [...yes, ...no];
}

const [agentdyn, vigil, out] = process.argv.slice(2);
if (!agentdyn || !vigil || !out) {
  console.error("usage: npx tsx scripts/vendor-signature-slice.ts <agentdyn dir> <vigil dir> <out test/data>");
  process.exit(2);
}
const chosen: Array<[string, string, string]> = [
  ...pick(agentdyn, AGENTDYN_PER_CLASS, (d) => d.security as boolean).map((f) => [agentdyn, f, "agentdyn"] as [string, string, string]),
  ...pick(vigil, VIGIL_PER_CLASS, (d) => typeof d.malicious_tool_docstring === "string" && d.malicious_tool_docstring !== "", /^debug_run\//).map(
    (f) => [vigil, f, "vigil"] as [string, string, string],
  ),
];
for (const [root, f, name] of chosen) {
  const dest = path.join(out, name, path.relative(root, f));
  mkdirSync(path.dirname(dest), { recursive: true });
  copyFileSync(f, dest);
}
console.log(`copied ${chosen.length} files`);
