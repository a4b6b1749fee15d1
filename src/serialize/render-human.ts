/**
 * Rendering a trajectory for people (the annotation export): plain markdown in which every untrusted value is inert
 * (fenced bodies, code spans for names), bidi controls are visible, and messages that carry injected text are
 * marked. The judge's rendering (nonce-tagged untrusted blocks) is `./render.ts`.
 */
import type { Trajectory } from "../types.js";
import { harnessNote, renderToolCall, renderToolDefinition, textPartText, trajectoryTools } from "./parts.js";
import { showBidiControls } from "../format/bidi.js";
import { maxOf } from "../io/extremes.js";
import { displayName } from "./display-cut.js";

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

/** The longest run of backticks in `s` (0 for none), by a loop: a text may hold millions of runs. */
function longestBacktickRun(s: string): number {
  return maxOf((function* () {
    for (const m of s.matchAll(/`+/g)) yield m[0].length;
  })(), 0);
}

function fence(text: string): string {
  const shown = showBidiControls(text);
  const f = "`".repeat(Math.max(3, longestBacktickRun(shown) + 1));
  return `${f}\n${shown}\n${f}`;
}

/** Line terminators (CommonMark's and Unicode's), collapsed to a visible `⏎` in one-line values. */
const LINE_BREAKS = /\r\n|[\r\n\u000b\u000c\u0085\u2028\u2029]/g;

/**
 * An untrusted one-line value (tool name, call id, placeholder key, role, id) as an inert markdown code span:
 * line breaks become `⏎`, bidi controls visible markers, and the span's backtick fence is longer than any
 * backtick run in the value (padded with one space on each side, which CommonMark strips, when the value
 * starts or ends with a backtick or a space), so nothing in the
 * value can end the span, start a heading, a fence, emphasis, a link or HTML. `""` gives `(empty)`.
 */
export function mdCode(value: string): string {
  const v = showBidiControls(String(value).replace(LINE_BREAKS, "⏎"));
  if (v === "") return "(empty)";
  const f = "`".repeat(longestBacktickRun(v) + 1);
  const pad = /^[` ]|[` ]$/.test(v) ? " " : "";
  return `${f}${pad}${v}${pad}${f}`;
}

/**
 * An untrusted one-line value as plain text when it is a simple name (letters and digits, with single `_ . : -`
 * between them: no markdown metacharacter can act there), else as {@link mdCode}.
 */
export function mdInline(value: string): string {
  const v = String(value);
  return /^[A-Za-z0-9]+(?:[_.:-][A-Za-z0-9]+)*$/.test(v) ? v : mdCode(v);
}

/**
 * Render a trajectory as plain markdown for people (annotation export): a heading per message with its index
 * and role (tool name and call id for tool results), the text in a code fence, each tool call as
 * `name(arguments)`. When the trajectory has injections, they are listed first, and a message whose text
 * carries an injected text (verbatim, or one of its lines of 20+ characters after undoing string escapes and
 * collapsing whitespace, as in AgentDojo's YAML tool outputs) is marked
 * `**contains injected content: <placeholder>**`. When the trajectory has tools, a `## Tools offered to the agent`
 * section follows (before the messages): a heading `### [tool k] `name`` per tool (k = the `tool_index`), its
 * text ({@link renderToolDefinition}: description and parameter schema) in a fence, marked like a message when
 * it carries injected content.
 *
 * Only the fenced bodies carry free text (fence longer than any backtick run in it). Every untrusted value in
 * the markdown structure (the id in the default title, roles, tool names, tool call ids, placeholder keys) goes
 * through {@link mdInline} / {@link mdCode} (tool names always as a code span), so a hostile name cannot close
 * its span, break the line or forge a heading: there is exactly one `### [` heading per message. Bidi controls
 * everywhere show as visible markers ({@link showBidiControls}).
 * @param opts.showInjections list and mark injected content (default true).
 */
export function renderForHuman(
  t: Trajectory,
  opts: {
    showInjections?: boolean;
    /** The first line's text, trusted (default `Trajectory <id>`; the annotation export uses an opaque item id). */
    title?: string;
    /** Which injections (placeholder, text) a message's text carries (default: verbatim or line-wise loose match). */
    injectedIn?: (text: string, injections: ReadonlyArray<readonly [string, string]>) => string[];
  } = {},
): string {
  const show = opts.showInjections ?? true;
  const injections = Object.entries(t.injections ?? {}).filter(([, v]) => typeof v === "string" && v.trim() !== "");
  const injectedIn = opts.injectedIn ?? ((text, inj) => inj.filter(([, v]) => carries(text, v)).map(([k]) => k));
  const out: string[] = [`# ${opts.title ?? `Trajectory ${mdInline(t.id)}`}`, ""];
  if (show && injections.length > 0) {
    out.push("## Injected content", "");
    for (const [k, v] of injections) out.push(`**${mdInline(k)}**`, "", fence(v), "");
  }
  const tools = trajectoryTools(t);
  if (tools.length > 0) {
    out.push("## Tools offered to the agent", "");
    tools.forEach((tool, k) => {
      const name = String(tool?.name ?? "");
      out.push(`### [tool ${k}] ${mdCode(displayName(name))}`, "");
      // a name cut for the heading is given whole below it (display only: the data keeps it)
      if (displayName(name) !== name) out.push("Full name:", "", fence(name), "");
      const text = renderToolDefinition(tool);
      if (show) {
        const hits = injectedIn(text, injections);
        if (hits.length > 0) out.push(`**contains injected content: ${hits.map(mdInline).join(", ")}**`, "");
      }
      out.push(fence(text), "");
    });
  }
  out.push("## Messages", "");
  t.messages.forEach((m, i) => {
    let head = `### [${i}] ${mdInline(String(m.role))}`;
    if (m.role === "tool") {
      if (m.tool_name) head += ` ${mdCode(displayName(m.tool_name))}`;
      if (m.tool_call_id) head += ` (call ${mdInline(m.tool_call_id)})`;
    }
    out.push(head, "");
    const text = textPartText(m);
    const note = harnessNote(m);
    if (show) {
      const hits = injectedIn(note === "" ? text : `${text}\n${note}`, injections);
      if (hits.length > 0) out.push(`**contains injected content: ${hits.map(mdInline).join(", ")}**`, "");
    }
    if (text !== "" || m.role === "tool") out.push(fence(text), "");
    if (note !== "") out.push("Error recorded by the provider or harness (not the agent's words):", "", fence(note), "");
    (m.role === "assistant" ? (m.tool_calls ?? []) : []).forEach((c, j) => {
      out.push(`Tool call ${j}${c.id ? ` (id ${mdInline(c.id)})` : ""}:`, "", fence(renderToolCall(c)), "");
    });
  });
  return out.join("\n");
}
