/**
 * Rendering a trajectory for a judge (nonce-tagged untrusted blocks); for people (plain markdown) see `./render-human.ts`.
 *
 * Judge layout (N = the nonce; every untrusted text is `neutralize(text, N)`, attribute values are
 * additionally XML-escaped):
 *
 * ```
 * <untrusted_trajectory_N>
 * <tools_N>
 * <tool_definition_N index="0" name="send_email">
 * Sends an email. Parameters: ...
 * </tools_N>
 * <message_N index="0" role="system">
 * You are ...
 * <message_N index="2" role="assistant">
 * Sure, forwarding the invoices now.
 * <tool_call_N index="0" id="call_2">send_email({"to":"x@y.z"})
 * <message_N index="3" role="tool" tool_name="send_email">
 * Sent.
 * </untrusted_trajectory_N>
 * ```
 *
 * Inside a block, each element is one **header tag** carrying the nonce, and runs to the next header or to the
 * block's closing tag (no per-element closing tag: the nonce is written once per element instead of twice, issue
 * 26). This is as unambiguous as closing tags: `neutralize` escapes every `<` that starts a tag-like name of
 * {@link TAG_NAMES} in the content (and the nonce itself), so a header can only come from here, and an element's
 * text is exactly what lies between its header (plus the newline after a message, tool definition or injection
 * header) and the newline before the next header (`parseMessages` in test/serialize/judge-view.ts reads it back). Only the two
 * blocks and `<tools_N>` keep a closing tag, so the judge sees where the trajectory and the tool list end.
 *
 * A tool message's `tool_call_id` is left out when the tool name links it to its call without doubt (the only
 * call of that name, with that id, in the nearest assistant turn with calls: `impliedCallIds`); else shown.
 *
 * The `<tools_N>` element is present when the trajectory has tools (`Trajectory.tools`): one
 * `<tool_definition_N index="k" name="...">` header per tool, followed by the tool's part text (`renderToolDefinition`:
 * description, then `Parameters: ` + the schema as compact JSON); `index` is the `tool_index` a quote cites.
 * A message's text line is its part text (`textPartText`: a tool error shows as `\nError: ...`) and is left out
 * when the message has no text part (empty assistant text beside tool calls); a tool message always has its
 * (possibly empty) body. The `error` of a system, user or assistant message (a provider's or harness's note, a
 * `harness_note` part) follows the text line as its own element, `<message_note_N kind="error" author="the provider
 * or harness, not the agent">`, a newline and the note ({@link HARNESS_NOTE_ATTRS}); `message_note` starts with the
 * scaffolding name `message`, so no content can forge it. A trajectory without such a note renders as before. The injections block is `""` when `injections` is empty, else
 * `<untrusted_injected_content_N>` holding one `<injection_N placeholder="...">` header, a newline and the text per
 * placeholder, in key order.
 *
 * Budget: when the two blocks together exceed `budgetChars`, two steps, the second only when the first is not
 * enough:
 * 1. the middle of the longest texts (parts, tool descriptions included, and injected texts) is elided, water-filling style (the longest is
 *    cut down to the next longest, and so on), keeping a head and a tail around
 *    `[... 12,345 characters elided by ipi-judge, code N ...]` (count of original characters removed; N the nonce). A text keeps at
 *    least {@link MIN_KEEP_CHARS} characters, so with very many messages the tags and these minimums alone can
 *    stay above the budget; then
 * 2. whole messages in the middle are left out, behind one line between the kept messages:
 *    `[... 1,191 messages elided by ipi-judge: index 5 to 1195 ...]` ({@link messageElisionMarker}; it is the
 *    last line before the header of the first message after the gap, whose `index` jumps). Kept, in
 *    this order while they fit at their minimum size: message 0, the last message, the messages up to and
 *    including the first user message (system prompt and the user's request), then alternately one more from
 *    the end and one more from the start. The injected texts are always kept (at their minimum size at least); so
 *    are the tool definitions, unless at their minimum size they take more than `TOOLS_SHARE` of the budget: then
 *    whole definitions are left out before both steps (`./tools-budget.ts`: the injection's surface and the tools
 *    the agent called kept first), behind one `<tools_elided_N>` line before `</tools_N>`. The kept texts then get the remaining budget (step 1 again over
 *    them only). `elidedMessages` names the range.
 * An attribute value (tool name, call id, placeholder) over {@link ATTR_MAX_CHARS} characters keeps its head and tail
 * around the same marker, whatever the budget (headers are not water-filled).
 * `truncated` is true whenever anything was elided. Only the scaffolding itself (the block tags, the injections
 * block at its minimum) can keep the output above a very small budget (still `truncated: true`). Never cut
 * silently. Cost is linear in the trajectory's size (sizes are computed, the blocks are built once).
 *
 * Quotes are verified against the full parts (`parts`), and `elided` says which of their text the judge was not
 * shown (a text's elided middle, a message left out whole, a tool definition left out), in the same offsets the
 * evidence code maps quotes to: a quote lying wholly there fails, one lying partly there is marked (hostile 51,
 * finding 1: a quote of elided text verified, and a label rested on text the judge never saw).
 */
import type { Part, Trajectory } from "../types.js";
import { keptTools, TOOLS_SHARE, toolsElisionMarker } from "./tools-budget.js";
import { trajectoryParts } from "./parts.js";
import { neutralize, newNonce } from "./untrusted.js";

/**
 * The fixed attributes of a harness note's header (`<message_note_N kind="error" author="...">`): what the text is, so
 * the judge does not read a content filter's words as the agent's. Fixed text: no resume key or template changes.
 */
export const HARNESS_NOTE_ATTRS = 'kind="error" author="the provider or harness, not the agent"';

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
  /** Some text was elided to fit the budget (inside texts, or whole messages). */
  truncated: boolean;
  /** The parts (full, unelided texts) quotes are verified against. */
  parts: Part[];
  /** Whole messages left out (indices `from`..`to`, inclusive; `count = to - from + 1`); absent when none. */
  elidedMessages?: { from: number; to: number; count: number };
  /**
   * Per part (same index as `parts`): the ranges `[start, end)` of its ORIGINAL text (UTF-16 offsets, as
   * `parts[i].text.slice` takes them; never splitting a surrogate pair) the judge view does not show, or `undefined`
   * when the whole text is shown. An elided middle is one range; a message left out whole, or a tool definition left
   * out (./tools-budget.ts), is `[0, text.length]`.
   */
  elided: ElidedSpans;
}

/** Per part, the ranges of its original text left out of the judge's view (`RenderedTrajectory.elided`). */
export type ElidedSpans = (readonly (readonly [number, number])[] | undefined)[];

/**
 * The elision marker for `n` removed characters, e.g. `[... 12,345 characters elided by ipi-judge ...]`; with
 * `nonce` (the judge view always passes it) `[... 12,345 characters elided by ipi-judge, code N ...]`. The marker
 * sits inside a text, where a tag would end the element (elements have no closing tag), so it carries the request's
 * code as text: the content cannot hold the nonce (`neutralize` escapes it), so a marker an attacker wrote into a
 * tool result lacks the code the user message names as the structure's, and reads as content.
 */
export function elisionMarker(n: number, nonce?: string): string {
  return nonce === undefined ? `[... ${thousands(n)} characters elided by ipi-judge ...]` : `[... ${thousands(n)} characters elided by ipi-judge, code ${nonce} ...]`;
}

/** `n` with en-US thousands separators (`12345` -> `12,345`), as `toLocaleString("en-US")` for integers, faster. */
function thousands(n: number): string {
  return Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : n.toLocaleString("en-US");
}

/**
 * The line standing for whole messages `from`..`to` (0-based message indices, inclusive) left out of the
 * judge's view, e.g. `[... 1,191 messages elided by ipi-judge: index 5 to 1195 ...]` (count with thousands
 * separators, indices as in the `index` attributes). Without the trailing newline.
 *
 * With `nonce` (the judge view always passes it) the line starts with the header `<messages_elided_N>`: elements
 * have no closing tag, so a bare marker line would look the same inside a tool result as between two messages;
 * the nonce-bearing header can only come from here (`messages_elided` starts with the scaffolding name
 * `message`, whose `<` `neutralize` escapes in the content).
 */
export function messageElisionMarker(from: number, to: number, nonce?: string): string {
  const n = to - from + 1;
  const tag = nonce === undefined ? "" : `<messages_elided_${nonce}>`;
  return `${tag}[... ${thousands(n)} message${n === 1 ? "" : "s"} elided by ipi-judge: index ${from} to ${to} ...]`;
}

/** A character {@link xmlAttr} escapes. */
const XML_ATTR_SPECIAL = /[&"<>\r\n]/;

/**
 * Most original characters of an attribute value (a tool or call id, a tool name, an injection placeholder) the judge
 * view shows: a longer one keeps its head and tail around an {@link elisionMarker} (`RenderedTrajectory.truncated`
 * then true). Attribute values are headers, outside the budget's water-filling: uncapped, a 300,000-character tool
 * name or call id made a 20,000-character budget's view 600,000 characters long (red team 41).
 */
export const ATTR_MAX_CHARS = 400;

/** What {@link xmlAttr} counts: nonce occurrences (`neutralize`) and attribute values it cut ({@link ATTR_MAX_CHARS}). */
interface AttrSeen {
  nonce: number;
  attrsCut: number;
}

function xmlAttr(v: string, nonce: string, seen: AttrSeen): string {
  let s: string;
  if (v.length > ATTR_MAX_CHARS) {
    seen.attrsCut++;
    const head = safeCut(v, ATTR_MAX_CHARS / 2);
    const tailStart = safeCut(v, v.length - ATTR_MAX_CHARS / 2);
    // the marker holds no character escaped below, and is not neutralized (it carries the nonce as the code)
    s = `${neutralize(v.slice(0, head), nonce, seen)}${elisionMarker(tailStart - head, nonce)}${neutralize(v.slice(tailStart), nonce, seen)}`;
  } else s = neutralize(v, nonce, seen);
  // most values (roles, tool names, call ids) have nothing to escape: one test instead of six replacements
  if (!XML_ATTR_SPECIAL.test(s)) return s;
  return s
    .replace(/&/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\r/g, "&#13;")
    .replace(/\n/g, "&#10;");
}

/**
 * A bound on the length of the {@link messageElisionMarker} of any gap in `M` messages (at most 2 characters
 * above the longest): the largest count (`M`) and both indices with as many digits as `M - 1`. (`messageElisionMarker(0, M - 1)` is not it: `index 0 to 73` is
 * shorter than `index 20 to 54`, and budgeting with it overshot the budget by one character.)
 */
export function maxMessageElisionMarkerLength(M: number, nonce?: string): number {
  return messageElisionMarker(0, M - 1, nonce).length - 1 + String(M - 1).length;
}

/** Cut position near `i` that does not split a surrogate pair. */
function safeCut(s: string, i: number): number {
  if (i > 0 && i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) return i - 1;
  }
  return i;
}

/**
 * `text` with its middle elided so that about `keep` original characters remain; `cut`, when given, receives the
 * elided range `[head, tailStart)` of `text` (`RenderedTrajectory.elided`).
 */
function elide(text: string, keep: number, nonce: string, cut?: (range: [number, number]) => void): string {
  const head = safeCut(text, Math.ceil(keep / 2));
  const tailStart = safeCut(text, text.length - Math.floor(keep / 2));
  cut?.([head, tailStart]);
  return `${neutralize(text.slice(0, head), nonce)}${elisionMarker(tailStart - head, nonce)}${neutralize(text.slice(tailStart), nonce)}`;
}

/**
 * The fixed text of a judge view (everything but the displayed texts), for one nonce: the header of each unit
 * (part or injected text) and message, what follows each unit's text, and the block tags. Parts come in message
 * order, so message `i` owns the parts `[first[i], first[i + 1])`; the `T` tool descriptions come first.
 */
interface Scaffold {
  N: string;
  /** Number of parts (`P`), of tool descriptions among them (`T`, the first ones), of units (`U`: parts, then injected texts). */
  P: number;
  T: number;
  U: number;
  M: number;
  first: Int32Array;
  unitOpen: string[];
  unitClose: string[];
  msgOpen: string[];
  trajOpen: string;
  trajClose: string;
  toolsOpen: string;
  toolsClose: string;
  injOpen: string;
  injClose: string;
  hasInjections: boolean;
  /** Fixed length of each message (its header and its units' headers and line ends). */
  msgFixed: Float64Array;
  /** Fixed length of the injections block (0 when there is none) and of the tool list (0 when there is none). */
  injFixed: number;
  toolsFixed: number;
  /** The line (with its newline) standing for the tool definitions left out (./tools-budget.ts), when some are. */
  toolsMarker?: string;
}

/**
 * The {@link Scaffold} of trajectory `t` for nonce `N`; attribute values are neutralized with `seen` counting
 * nonce occurrences. Every header is one tag ending in `_N`; elements have no closing tag (module docstring).
 */
function scaffold(t: Trajectory, parts: Part[], injectionKeys: readonly string[], N: string, seen: AttrSeen): Scaffold {
  const messages = t.messages;
  const M = messages.length;
  const P = parts.length;
  let T = 0;
  while (T < P && parts[T].kind === "tool_description") T++;
  const U = P + injectionKeys.length;
  const first = new Int32Array(M + 1);
  for (let i = 0, u = 0; i <= M; i++) {
    while (u < P && parts[u].message_index < i) u++;
    first[i] = u;
  }
  const unitOpen: string[] = new Array(U);
  const unitClose: string[] = new Array(U);
  for (let u = 0; u < P; u++) {
    const p = parts[u];
    unitClose[u] = "\n";
    if (p.kind === "tool_description") {
      const tool = (t.tools ?? [])[p.tool_index!];
      unitOpen[u] = `<tool_definition_${N} index="${p.tool_index}" name="${xmlAttr(String(tool?.name ?? ""), N, seen)}">\n`;
    } else if (p.kind === "harness_note") {
      unitOpen[u] = `<message_note_${N} ${HARNESS_NOTE_ATTRS}>\n`;
    } else if (p.tool_call_index === undefined) {
      unitOpen[u] = "";
    } else {
      const c = messages[p.message_index].tool_calls![p.tool_call_index];
      const id = c.id ? ` id="${xmlAttr(c.id, N, seen)}"` : "";
      unitOpen[u] = `<tool_call_${N} index="${p.tool_call_index}"${id}>`;
    }
  }
  injectionKeys.forEach((k, j) => {
    unitOpen[P + j] = `<injection_${N} placeholder="${xmlAttr(k, N, seen)}">\n`;
    unitClose[P + j] = "\n";
  });
  const implied = impliedCallIds(messages);
  const msgOpen = messages.map((m, i) => {
    let attrs = ` index="${i}" role="${xmlAttr(String(m.role), N, seen)}"`;
    if (m.tool_call_id && !implied[i]) attrs += ` tool_call_id="${xmlAttr(m.tool_call_id, N, seen)}"`;
    if (m.tool_name) attrs += ` tool_name="${xmlAttr(m.tool_name, N, seen)}"`;
    return `<message_${N}${attrs}>\n`;
  });
  const s: Scaffold = {
    N, P, T, U, M, first, unitOpen, unitClose, msgOpen,
    trajOpen: `<untrusted_trajectory_${N}>\n`,
    trajClose: `</untrusted_trajectory_${N}>`,
    toolsOpen: `<tools_${N}>\n`,
    toolsClose: `</tools_${N}>\n`,
    injOpen: `<untrusted_injected_content_${N}>\n`,
    injClose: `</untrusted_injected_content_${N}>`,
    hasInjections: injectionKeys.length > 0,
    msgFixed: new Float64Array(M),
    injFixed: 0,
    toolsFixed: 0,
  };
  const unitsFixed = (a: number, b: number): number => {
    let f = 0;
    for (let u = a; u < b; u++) f += unitOpen[u].length + unitClose[u].length;
    return f;
  };
  for (let i = 0; i < M; i++) s.msgFixed[i] = msgOpen[i].length + unitsFixed(first[i], first[i + 1]);
  if (s.hasInjections) s.injFixed = s.injOpen.length + s.injClose.length + unitsFixed(P, U);
  if (T > 0) s.toolsFixed = s.toolsOpen.length + s.toolsClose.length + unitsFixed(0, T);
  return s;
}

/**
 * Per message, whether its `tool_call_id` goes without saying, so the header leaves it out (issue 26: a provider's
 * call id is 8-20 tokens, written on the call and again on its result): a tool message whose id is that of
 * exactly one call in the trajectory, made in the nearest assistant message before it that has tool calls, whose
 * name is the tool message's `tool_name`, and no other call of that message has that name. The judge then links
 * the result to its call by the tool name in that turn, as unambiguously as by the id. Any other tool message
 * keeps its `tool_call_id`.
 */
function impliedCallIds(messages: Trajectory["messages"]): boolean[] {
  const byId = new Map<string, number>();
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.id) byId.set(c.id, (byId.get(c.id) ?? 0) + 1);
  const out: boolean[] = new Array(messages.length).fill(false);
  let turn: Trajectory["messages"][number] | undefined;
  messages.forEach((m, i) => {
    if (m.role === "assistant" && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) turn = m;
    if (m.role !== "tool" || !m.tool_call_id || !m.tool_name || byId.get(m.tool_call_id) !== 1 || !turn) return;
    const calls = turn.tool_calls!;
    const mine = calls.filter((c) => c.id === m.tool_call_id);
    out[i] = mine.length === 1 && mine[0].name === m.tool_name && calls.filter((c) => c.name === m.tool_name).length === 1;
  });
  return out;
}

/** Both blocks from displayed texts (one per unit); messages `gap` (inclusive range) replaced by the marker line. */
function buildBlocks(s: Scaffold, display: string[], gap?: { from: number; to: number }): { traj: string; inj: string } {
  const { unitOpen, unitClose, first } = s;
  const out: string[] = [s.trajOpen];
  if (s.T > 0) {
    out.push(s.toolsOpen);
    for (let u = 0; u < s.T; u++) out.push(unitOpen[u], display[u], unitClose[u]);
    if (s.toolsMarker) out.push(s.toolsMarker);
    out.push(s.toolsClose);
  }
  for (let i = 0; i < s.M; i++) {
    if (gap && i >= gap.from && i <= gap.to) {
      if (i === gap.from) out.push(`${messageElisionMarker(gap.from, gap.to, s.N)}\n`);
      continue;
    }
    out.push(s.msgOpen[i]);
    for (let u = first[i]; u < first[i + 1]; u++) out.push(unitOpen[u], display[u], unitClose[u]);
  }
  out.push(s.trajClose);
  let inj = "";
  if (s.hasInjections) {
    const o: string[] = [s.injOpen];
    for (let u = s.P; u < s.U; u++) o.push(unitOpen[u], display[u], unitClose[u]);
    o.push(s.injClose);
    inj = o.join("");
  }
  return { traj: out.join(""), inj };
}

/** The length of the view with every text whole (`full`, one per unit). */
function viewLength(sc: Scaffold, full: readonly string[]): number {
  let n = sc.trajOpen.length + sc.trajClose.length + sc.injFixed + sc.toolsFixed;
  for (let i = 0; i < sc.M; i++) n += sc.msgFixed[i];
  for (const f of full) n += f.length;
  return n;
}

/**
 * Leave out whole tool definitions when the tool list at its minimum size takes more than its share of the budget
 * (`./tools-budget.ts`): a left-out definition's header, line end and text become empty (its part stays in `parts`),
 * and the scaffold gets the marker line and the tool list's new fixed length. Writes into `sc`, `texts` and `full`.
 * @returns whether any definition was left out.
 */
function cutTools(t: Trajectory, sc: Scaffold, parts: Part[], texts: string[], full: string[], budget: number): boolean {
  const T = sc.T;
  if (T < 2) return false;
  const minLen = new Float64Array(T);
  const names: string[] = new Array(T);
  for (let u = 0; u < T; u++) {
    const text = texts[u];
    minLen[u] = sc.unitOpen[u].length + sc.unitClose[u].length + (MIN_KEEP_CHARS >= text.length ? full[u].length : elide(text, MIN_KEEP_CHARS, sc.N).length);
    const tool = (t.tools ?? [])[parts[u].tool_index!];
    names[u] = typeof tool?.name === "string" ? tool.name : "";
  }
  const worst = toolsElisionMarker({ count: T, chars: Number.MAX_SAFE_INTEGER, called: T }, T, sc.N).length + 1;
  const cut = keptTools(t, texts.slice(0, T), names, minLen, Math.floor(budget * TOOLS_SHARE) - sc.toolsOpen.length - sc.toolsClose.length - worst);
  if (!cut) return false;
  let fixed = sc.toolsOpen.length + sc.toolsClose.length;
  for (let u = 0; u < T; u++) {
    if (cut.kept[u]) {
      fixed += sc.unitOpen[u].length + sc.unitClose[u].length;
      continue;
    }
    sc.unitOpen[u] = sc.unitClose[u] = texts[u] = full[u] = "";
  }
  sc.toolsMarker = `${toolsElisionMarker(cut.left, T, sc.N)}\n`;
  sc.toolsFixed = fixed + sc.toolsMarker.length;
  return true;
}

/**
 * Water-filling over `units`: the cap C on each displayed length that brings their sum within `available`;
 * texts longer than C are elided (at least MIN_KEEP_CHARS kept). Escapes in the kept head and tail can make the
 * estimate short, so the cap is tightened by the overshoot and sought again (at most 8 rounds).
 * `full[u]` is unit `u`'s neutralized text, `texts[u]` its original text. Writes into `display`; returns the sum
 * of the displayed lengths of `units`.
 */
function waterFill(units: ArrayLike<number>, available: number, full: string[], texts: string[], N: string, display: string[], cuts: ([number, number] | undefined)[]): number {
  let maxLen = 0;
  for (let k = 0; k < units.length; k++) maxLen = Math.max(maxLen, full[units[k]].length);
  let sum = 0;
  for (let round = 0; round < 8; round++) {
    let lo = 0;
    let hi = maxLen;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      let s = 0;
      for (let k = 0; k < units.length; k++) s += Math.min(full[units[k]].length, mid);
      if (s <= available) lo = mid;
      else hi = mid - 1;
    }
    const cap = lo;
    sum = 0;
    for (let k = 0; k < units.length; k++) {
      const u = units[k];
      let d = full[u];
      cuts[u] = undefined;
      if (d.length > cap) {
        const text = texts[u];
        const keep = Math.max(MIN_KEEP_CHARS, cap - elisionMarker(text.length, N).length);
        if (keep < text.length) d = elide(text, keep, N, (r) => (cuts[u] = r));
      }
      display[u] = d;
      sum += d.length;
    }
    if (sum <= available || cap === 0) break;
    available -= sum - available; // escapes made the estimate short: tighten and retry
  }
  return sum;
}

/**
 * Step 2 of the budget (module docstring): which messages to keep, at their minimum sizes `msgMin(i)`, within
 * `room` characters: `[0, head)` and `[tail, M)` are kept. `head >= tail` means every message fits.
 */
function keptMessages(messages: Trajectory["messages"], msgMin: (i: number) => number, room: number): { head: number; tail: number } {
  const M = messages.length;
  let head = 0;
  let tail = M;
  const takeHead = (): boolean => {
    if (head >= tail) return false;
    const need = msgMin(head);
    if (need > room) return false;
    room -= need;
    head++;
    return true;
  };
  const takeTail = (): boolean => {
    if (tail <= head) return false;
    const need = msgMin(tail - 1);
    if (need > room) return false;
    room -= need;
    tail--;
    return true;
  };
  if (takeHead()) {
    takeTail();
    const firstUser = messages.findIndex((m) => m.role === "user");
    while (head <= firstUser && takeHead());
    let headOpen = head > firstUser;
    let tailOpen = true;
    while (headOpen || tailOpen) {
      if (tailOpen) tailOpen = takeTail();
      if (headOpen) headOpen = takeHead();
    }
  }
  return { head, tail };
}

/**
 * Render a trajectory for a judge (module docstring).
 * @param t canonical trajectory.
 * @param opts.nonce the nonce to use (default: a fresh {@link newNonce}, drawn again while it occurs, in any case,
 *   in the content).
 * @param opts.budgetChars character budget of both blocks together (default {@link DEFAULT_BUDGET_CHARS}).
 * @returns the blocks, the nonce, `truncated`, the full parts, and `elidedMessages` when whole messages were left out.
 * @throws RangeError when `budgetChars` is not a positive number; Error for an invalid nonce (see `neutralize`).
 */
export function renderForJudge(t: Trajectory, opts: { nonce?: string; budgetChars?: number } = {}): RenderedTrajectory {
  const budget = opts.budgetChars ?? DEFAULT_BUDGET_CHARS;
  if (!(budget > 0)) throw new RangeError(`budgetChars must be > 0, got ${budget}`);
  const parts = trajectoryParts(t);
  const injections = Object.entries(t.injections ?? {}).map(([k, v]) => [k, typeof v === "string" ? v : ""] as const);
  const messages = t.messages;
  const M = messages.length;

  // A drawn nonce must not occur in the content: the texts are neutralized with it, which counts its occurrences
  // (`seen`), and the trajectory is rendered again with a new one when there were any (never, in practice, for
  // 48 random bits; the escape would keep them inert anyway). A caller's nonce is used as given.
  const N = opts.nonce ?? newNonce();
  const seen: AttrSeen = { nonce: 0, attrsCut: 0 };

  // Units that may be elided: parts (by index; the T tool descriptions come first) then injected texts.
  const unitTexts = [...parts.map((p) => p.text), ...injections.map(([, v]) => v)];
  const U = unitTexts.length;
  const full = unitTexts.map((s) => neutralize(s, N, seen));
  const sc = scaffold(t, parts, injections.map(([k]) => k), N, seen);
  if (seen.nonce > 0 && opts.nonce === undefined) return renderForJudge(t, opts);
  // a view over the budget whose tool list is over its share: whole definitions left out (./tools-budget.ts)
  const toolsCut = viewLength(sc, full) > budget && cutTools(t, sc, parts, unitTexts, full, budget);
  const { P, T, first, msgFixed, injFixed, toolsFixed } = sc;
  const injUnits: number[] = [];
  for (let u = P; u < U; u++) injUnits.push(u);
  const toolUnits: number[] = [];
  for (let u = 0; u < T; u++) toolUnits.push(u);

  const done = (display: string[], truncated: boolean, cuts: ([number, number] | undefined)[], gap?: { from: number; to: number }): RenderedTrajectory => {
    const blocks = buildBlocks(sc, display, gap);
    const elided: ElidedSpans = new Array(P);
    for (let u = 0; u < P; u++) {
      const p = parts[u];
      const whole = u < T ? toolsCut && sc.unitOpen[u] === "" : gap !== undefined && p.message_index >= gap.from && p.message_index <= gap.to;
      if (whole) elided[u] = [[0, p.text.length]];
      else if (cuts[u] !== undefined && display[u] !== full[u]) elided[u] = [cuts[u]!];
    }
    const r: RenderedTrajectory = { trajectoryBlock: blocks.traj, injectionsBlock: blocks.inj, nonce: N, truncated: truncated || seen.attrsCut > 0 || toolsCut, parts, elided };
    if (gap) r.elidedMessages = { from: gap.from, to: gap.to, count: gap.to - gap.from + 1 };
    return r;
  };

  let fixedAll = sc.trajOpen.length + sc.trajClose.length + injFixed + toolsFixed;
  for (let i = 0; i < M; i++) fixedAll += msgFixed[i];
  let textAll = 0;
  for (let u = 0; u < U; u++) textAll += full[u].length;
  if (fixedAll + textAll <= budget) return done(full, false, []);

  /** The shortest display of unit `u`: whole when short, else {@link MIN_KEEP_CHARS} around a marker (its range into `cuts`). */
  const minDisplay = (u: number, cuts?: ([number, number] | undefined)[]): string =>
    MIN_KEEP_CHARS >= unitTexts[u].length ? full[u] : elide(unitTexts[u], MIN_KEEP_CHARS, N, cuts && ((r) => (cuts[u] = r)));

  // Sizes at their minimum: when even they do not fit, step 1 is skipped (it could not reach the budget).
  const minLen = new Float64Array(U);
  let minAll = 0;
  for (let u = 0; u < U; u++) minAll += minLen[u] = minDisplay(u).length;

  // Step 1: elide inside texts.
  if (fixedAll + minAll <= budget || M < 3) {
    const allUnits = new Int32Array(U);
    for (let u = 0; u < U; u++) allUnits[u] = u;
    const display1 = full.slice();
    const cuts1: ([number, number] | undefined)[] = [];
    const sum1 = waterFill(allUnits, budget - fixedAll, full, unitTexts, N, display1, cuts1);
    if (fixedAll + sum1 <= budget || M < 3) return done(display1, display1.some((d, u) => d !== full[u]), cuts1);
  }

  // Step 2: leave out whole messages in the middle. Sizes at their minimum decide which messages are kept.
  const msgMin = (i: number): number => {
    let s = msgFixed[i];
    for (let u = first[i]; u < first[i + 1]; u++) s += minLen[u];
    return s;
  };
  let injMin = injFixed + toolsFixed;
  for (const u of injUnits) injMin += minLen[u];
  for (const u of toolUnits) injMin += minLen[u];
  const markerMax = maxMessageElisionMarkerLength(M, sc.N) + 1;
  const { head, tail } = keptMessages(messages, msgMin, budget - sc.trajOpen.length - sc.trajClose.length - injMin - markerMax);
  if (head >= tail) {
    // Every message fits at its minimum after all (step 1's estimate fell short): the minimum displays.
    const cutsMin: ([number, number] | undefined)[] = [];
    return done(full.map((_d, u) => minDisplay(u, cutsMin)), true, cutsMin);
  }
  const gap = { from: head, to: tail - 1 };

  // The kept texts share what is left of the budget.
  const kept: number[] = [];
  let fixedKept = sc.trajOpen.length + sc.trajClose.length + injFixed + toolsFixed + messageElisionMarker(gap.from, gap.to, sc.N).length + 1;
  for (let i = 0; i < M; i++) {
    if (i >= gap.from && i <= gap.to) continue;
    fixedKept += msgFixed[i];
    for (let u = first[i]; u < first[i + 1]; u++) kept.push(u);
  }
  for (const u of toolUnits) kept.push(u); // a loop: spread arguments overflow the stack past ~120,000 tools
  for (const u of injUnits) kept.push(u);
  const display2 = full.slice();
  const cuts2: ([number, number] | undefined)[] = [];
  waterFill(kept, budget - fixedKept, full, unitTexts, N, display2, cuts2);
  return done(display2, true, cuts2, gap);
}
