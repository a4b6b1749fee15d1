/**
 * Rendering a trajectory for a judge (nonce-tagged untrusted blocks) and for humans (plain markdown).
 *
 * Judge layout (N = the nonce; every untrusted text is `neutralize(text, N)`, attribute values are
 * additionally XML-escaped):
 *
 * ```
 * <untrusted_trajectory_N>
 * <message_N index="0" role="system">
 * You are ...
 * </message_N>
 * <message_N index="2" role="assistant">
 * Sure, forwarding the invoices now.
 * <tool_call_N index="0" id="call_2">send_email({"to":"x@y.z"})</tool_call_N>
 * </message_N>
 * <message_N index="3" role="tool" tool_call_id="call_2" tool_name="send_email">
 * Sent.
 * </message_N>
 * </untrusted_trajectory_N>
 * ```
 *
 * A message's text line is its part text (`messageText`: a tool error shows as `\nError: ...`) and is left out
 * when the message has no text part (empty assistant text beside tool calls); a tool message always has its
 * (possibly empty) body. The injections block is `""` when `injections` is empty, else
 * `<untrusted_injected_content_N>` holding one `<injection_N placeholder="...">text</injection_N>` per
 * placeholder, in key order.
 *
 * Budget: when the two blocks together exceed `budgetChars`, the middle of the longest texts (parts and
 * injected texts) is elided, water-filling style (the longest is cut down to the next longest, and so on),
 * keeping a head and a tail around `[... 12,345 characters elided by ipi-judge ...]` (count of original
 * characters removed), and `truncated` is true. A text keeps at least {@link MIN_KEEP_CHARS} characters, so a
 * trajectory with very many parts can stay above the budget (still `truncated: true`). Never cut silently.
 */
import type { Message, Part, Trajectory } from "../types.js";
import { messageText, renderToolCall, trajectoryParts } from "./parts.js";
import { neutralize, newNonce } from "./untrusted.js";

/** Default character budget of the rendered blocks. */
export const DEFAULT_BUDGET_CHARS = 120_000;
/** Fewest original characters an elided text keeps (half head, half tail). */
export const MIN_KEEP_CHARS = 200;

/** What the judge prompt embeds. */
export interface RenderedTrajectory {
  /** `<untrusted_trajectory_N>` ... `</untrusted_trajectory_N>`. */
  trajectoryBlock: string;
  /** `<untrusted_injected_content_N>` ... or `""` when the trajectory has no injections. */
  injectionsBlock: string;
  nonce: string;
  /** Some text was elided to fit the budget. */
  truncated: boolean;
  /** The parts (full, unelided texts) quotes are verified against. */
  parts: Part[];
}

/** The elision marker for `n` removed characters, e.g. `[... 12,345 characters elided by ipi-judge ...]`. */
export function elisionMarker(n: number): string {
  return `[... ${n.toLocaleString("en-US")} characters elided by ipi-judge ...]`;
}

function xmlAttr(v: string, nonce: string): string {
  return neutralize(v, nonce)
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\r/g, "&#13;")
    .replace(/\n/g, "&#10;");
}

/** Cut position near `i` that does not split a surrogate pair. */
function safeCut(s: string, i: number): number {
  if (i > 0 && i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) return i - 1;
  }
  return i;
}

/** `text` with its middle elided so that about `keep` original characters remain. */
function elide(text: string, keep: number, nonce: string): string {
  const head = safeCut(text, Math.ceil(keep / 2));
  const tailStart = safeCut(text, text.length - Math.floor(keep / 2));
  return `${neutralize(text.slice(0, head), nonce)}${elisionMarker(tailStart - head)}${neutralize(text.slice(tailStart), nonce)}`;
}

function containsCI(haystacks: string[], needle: string): boolean {
  const n = needle.toLowerCase();
  return haystacks.some((h) => h.toLowerCase().includes(n));
}

/**
 * Render a trajectory for a judge (module docstring).
 * @param t canonical trajectory.
 * @param opts.nonce the nonce to use (default: a fresh {@link newNonce}, redrawn while it occurs in the content).
 * @param opts.budgetChars character budget of both blocks together (default {@link DEFAULT_BUDGET_CHARS}).
 * @throws RangeError when `budgetChars` is not a positive number; Error for an invalid nonce (see `neutralize`).
 */
export function renderForJudge(t: Trajectory, opts: { nonce?: string; budgetChars?: number } = {}): RenderedTrajectory {
  const budget = opts.budgetChars ?? DEFAULT_BUDGET_CHARS;
  if (!(budget > 0)) throw new RangeError(`budgetChars must be > 0, got ${budget}`);
  const parts = trajectoryParts(t);
  const injections = Object.entries(t.injections ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : ""] as const);

  let nonce = opts.nonce;
  if (nonce === undefined) {
    const texts = [
      ...parts.map((p) => p.text),
      ...injections.flat(),
      ...t.messages.flatMap((m) => [m.tool_name ?? "", m.tool_call_id ?? "", ...(m.tool_calls ?? []).map((c) => c.id ?? "")]),
    ];
    do nonce = newNonce();
    while (containsCI(texts, nonce));
  }
  const N = nonce;

  // Units that may be elided: parts (by index) then injected texts.
  const unitTexts = [...parts.map((p) => p.text), ...injections.map(([, v]) => v)];
  const full = unitTexts.map((s) => neutralize(s, N));

  const partIndex = new Map<string, number>();
  parts.forEach((p, i) => partIndex.set(`${p.message_index}:${p.tool_call_index ?? ""}`, i));

  const build = (display: string[]): { traj: string; inj: string } => {
    const out: string[] = [`<untrusted_trajectory_${N}>\n`];
    t.messages.forEach((m: Message, i) => {
      let attrs = ` index="${i}" role="${xmlAttr(String(m.role), N)}"`;
      if (m.tool_call_id) attrs += ` tool_call_id="${xmlAttr(m.tool_call_id, N)}"`;
      if (m.tool_name) attrs += ` tool_name="${xmlAttr(m.tool_name, N)}"`;
      out.push(`<message_${N}${attrs}>\n`);
      const ti = partIndex.get(`${i}:`);
      if (ti !== undefined) out.push(`${display[ti]}\n`);
      if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
        m.tool_calls.forEach((c, j) => {
          const ci = partIndex.get(`${i}:${j}`)!;
          const id = c.id ? ` id="${xmlAttr(c.id, N)}"` : "";
          out.push(`<tool_call_${N} index="${j}"${id}>${display[ci]}</tool_call_${N}>\n`);
        });
      }
      out.push(`</message_${N}>\n`);
    });
    out.push(`</untrusted_trajectory_${N}>`);
    let inj = "";
    if (injections.length > 0) {
      const o: string[] = [`<untrusted_injected_content_${N}>\n`];
      injections.forEach(([k], j) => {
        o.push(`<injection_${N} placeholder="${xmlAttr(k, N)}">\n${display[parts.length + j]}\n</injection_${N}>\n`);
      });
      o.push(`</untrusted_injected_content_${N}>`);
      inj = o.join("");
    }
    return { traj: out.join(""), inj };
  };

  let blocks = build(full);
  let total = blocks.traj.length + blocks.inj.length;
  if (total <= budget) {
    return { trajectoryBlock: blocks.traj, injectionsBlock: blocks.inj, nonce: N, truncated: false, parts };
  }

  // Water-filling: find the cap C on each text's displayed length that brings the total under the budget.
  const fixed = total - full.reduce((s, d) => s + d.length, 0);
  let available = budget - fixed;
  let display = full;
  for (let round = 0; round < 8; round++) {
    const lens = full.map((d) => d.length);
    let lo = 0;
    let hi = Math.max(...lens);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const sum = lens.reduce((s, l) => s + Math.min(l, mid), 0);
      if (sum <= available) lo = mid;
      else hi = mid - 1;
    }
    const cap = lo;
    display = unitTexts.map((text, u) => {
      if (full[u].length <= cap) return full[u];
      const keep = Math.max(MIN_KEEP_CHARS, cap - elisionMarker(text.length).length);
      if (keep >= text.length) return full[u];
      return elide(text, keep, N);
    });
    blocks = build(display);
    total = blocks.traj.length + blocks.inj.length;
    if (total <= budget || cap === 0) break;
    available -= total - budget; // escapes made the estimate short: tighten and retry
  }
  const truncated = display.some((d, u) => d !== full[u]);
  return { trajectoryBlock: blocks.traj, injectionsBlock: blocks.inj, nonce: N, truncated, parts };
}

/** Loose comparison form for spotting injected text in a message: escapes undone, whitespace collapsed, lowercase. */
function loose(s: string): string {
  return s
    .replace(/\\[nrt]/g, " ")
    .replace(/\\/g, "")
    .replace(/''/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/** Whether `text` carries `injection`: verbatim, or (re-encoded, e.g. YAML) one of its lines of 20+ characters. */
function carries(text: string, injection: string): boolean {
  if (text.includes(injection.trim())) return true;
  const lt = loose(text);
  return injection
    .split(/\n+/)
    .map(loose)
    .some((line) => line.length >= 20 && lt.includes(line));
}

function fence(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(Math.max(3, longest + 1));
  return `${f}\n${text}\n${f}`;
}

/**
 * Render a trajectory as plain markdown for people (annotation export): a heading per message with its index
 * and role (tool name and call id for tool results), the text in a code fence, each tool call as
 * `name(arguments)`. When the trajectory has injections, they are listed first, and a message whose text
 * carries an injected text (verbatim, or one of its lines of 20+ characters after undoing string escapes and
 * collapsing whitespace, as in AgentDojo's YAML tool outputs) is marked
 * `**contains injected content: <placeholder>**`.
 * @param opts.showInjections list and mark injected content (default true).
 */
export function renderForHuman(t: Trajectory, opts: { showInjections?: boolean } = {}): string {
  const show = opts.showInjections ?? true;
  const injections = Object.entries(t.injections ?? {}).filter(([, v]) => typeof v === "string" && v.trim() !== "");
  const out: string[] = [`# Trajectory ${t.id}`, ""];
  if (show && injections.length > 0) {
    out.push("## Injected content", "");
    for (const [k, v] of injections) out.push(`**${k}**`, "", fence(v), "");
  }
  out.push("## Messages", "");
  t.messages.forEach((m, i) => {
    let head = `### [${i}] ${m.role}`;
    if (m.role === "tool") {
      if (m.tool_name) head += ` \`${m.tool_name}\``;
      if (m.tool_call_id) head += ` (call ${m.tool_call_id})`;
    }
    out.push(head, "");
    const text = messageText(m);
    if (show) {
      const hits = injections.filter(([, v]) => carries(text, v)).map(([k]) => k);
      if (hits.length > 0) out.push(`**contains injected content: ${hits.join(", ")}**`, "");
    }
    if (text !== "" || m.role === "tool") out.push(fence(text), "");
    (m.role === "assistant" ? (m.tool_calls ?? []) : []).forEach((c, j) => {
      out.push(`Tool call ${j}${c.id ? ` (id ${c.id})` : ""}:`, "", fence(renderToolCall(c)), "");
    });
  });
  return out.join("\n");
}
