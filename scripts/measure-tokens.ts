/**
 * Tokens per verdict of the judge prompt (issue 26, point 4): for each corpus, the first request of a verdict
 * (rubric system message + user message with the rendered trajectory) counted with `o200k_base` (gpt-tokenizer,
 * the GPT-4o/4.1/5 encoding), plus the chat format's overhead (`countPromptTokens`).
 *
 * Usage: npx tsx scripts/measure-tokens.ts [--root DIR] [--max N] NAME=PATH [NAME=PATH ...]
 *   --root DIR  the checkout whose `src/` renders the prompt (default: this one). Point it at an export of another
 *               commit (`git archive <commit> src prompts | tar -x -C DIR`, plus a `node_modules` link) to get the
 *               "before" column of a format change from the same script.
 *   --max N     at most N trajectories per corpus (default 2000), taken evenly over the files read in order.
 * Default corpora: the shared AgentDojo runs and the unpacked archives under /tmp/corpus (when present).
 *
 * Per corpus it prints the median and mean of: the system message (the rubric, cacheable), the user message,
 * the whole request; and, of the user message, the share of the nonce (tokens of the user message minus those of
 * the same message with every occurrence of the nonce removed) and of the scaffolding (tags, attributes and
 * template: the user message's tokens minus the sum of its displayed texts' tokens, each counted alone).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const root = path.resolve(arg("root") ?? path.join(HERE, ".."));
const max = Number(arg("max") ?? 2000);
const named = process.argv.slice(2).filter((a, i, all) => /^[^-][^=]*=/.test(a) && !all[i - 1]?.startsWith("--"));
const DEFAULTS: Array<[string, string]> = [
  ["agentdojo", "/work/shared/corpus/agentdojo"],
  ["agentdojo-scale", "/tmp/corpus/agentdojo-scale/runs"],
  ["agentdojo-defenses", "/tmp/corpus/agentdojo-defenses/agentdojo-defenses/runs"],
  ["agentdyn", "/tmp/corpus/agentdyn/agentdyn/runs"],
  ["vigil", "/tmp/corpus/vigil/vigil"],
];
const corpora = named.length > 0 ? named.map((a) => a.split("=", 2) as [string, string]) : DEFAULTS.filter(([, p]) => fs.existsSync(p));

const load = (rel: string) => import(pathToFileURL(path.join(root, rel)).href);
const { readTrajectories } = await load("src/ingest/index.ts");
const { renderForJudge } = await load("src/serialize/render.ts");
const { neutralize } = await load("src/serialize/untrusted.ts");
const { buildMessages } = await load("src/rubric/prompt.ts");
const { countPromptTokens, tokenCounter } = await import("../src/providers/tokens.js");
const count = tokenCounter("o200k_base");

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(`root: ${root}`);
console.log("| corpus | n | system (median) | user (median / mean) | request (median / mean) | nonce % of user | scaffolding % of user |");
console.log("|---|---|---|---|---|---|---|");
for (const [name, dir] of corpora) {
  const all: unknown[] = [];
  for await (const item of readTrajectories([dir], {})) if (item.kind === "trajectory") all.push(item.trajectory);
  const step = Math.max(1, all.length / max);
  const sys: number[] = [];
  const user: number[] = [];
  const total: number[] = [];
  const nonceShare: number[] = [];
  const scaffoldShare: number[] = [];
  for (let k = 0; k < all.length && sys.length < max; k += step) {
    const t = all[Math.floor(k)] as { injections?: Record<string, string> };
    const r = renderForJudge(t);
    const msgs = buildMessages(r);
    const u = count(msgs[1].content);
    sys.push(count(msgs[0].content));
    user.push(u);
    total.push(countPromptTokens(msgs, "o200k_base"));
    nonceShare.push((u - count(msgs[1].content.split(r.nonce).join(""))) / u);
    let texts = 0;
    for (const p of r.parts as Array<{ text: string }>) texts += count(neutralize(p.text, r.nonce));
    for (const v of Object.values(t.injections ?? {})) texts += typeof v === "string" ? count(neutralize(v, r.nonce)) : 0;
    scaffoldShare.push(Math.max(0, u - texts) / u);
  }
  const pct = (xs: number[]) => `${(100 * mean(xs)).toFixed(1)}%`;
  console.log(
    `| ${name} | ${sys.length} of ${all.length} | ${median(sys)} | ${median(user)} / ${mean(user).toFixed(0)} | ${median(total)} / ${mean(total).toFixed(0)} | ${pct(nonceShare)} | ${pct(scaffoldShare)} |`,
  );
}
