/**
 * The tool list's share of the judge view's budget (`./render.ts`, red team 41: 200,000 tool definitions rendered
 * 12.6 M characters under a 120,000-character `--budget-chars`, each kept at its minimum size with its header).
 *
 * When the view is over the budget and the tool definitions at their minimum size (header, and {@link MIN_KEEP_CHARS} of the text around the elision
 * marker) take more than {@link TOOLS_SHARE} of the budget, whole definitions are left out, as whole messages are:
 * kept, in this order while they fit in that share, the tools that carry an injected text (the injection's surface),
 * the tools the agent called, then the others by index; the kept ones are shown in index order, and one line before
 * `</tools_N>` says how many were left out, how many characters of theirs, and how many of them the agent called
 * ({@link toolsElisionMarker}). A view whose tool list fits in that share is the same as before.
 */
import type { Trajectory } from "../types.js";

/** Largest share of the budget the tool list takes at its minimum size before whole definitions are left out. */
export const TOOLS_SHARE = 0.5;

/**
 * The line standing for the tool definitions left out, e.g. `<tools_elided_N>[... 199,950 of 200,000 tool
 * definitions elided by ipi-judge: 12,345,678 characters; none of them called by the agent ...]` (without the
 * trailing newline). Its header carries the nonce: `tools_elided` starts with the scaffolding name `tool`, whose `<`
 * `neutralize` escapes in the content, so no content can forge it.
 */
export function toolsElisionMarker(left: { count: number; chars: number; called: number }, total: number, nonce: string): string {
  const called = left.called === 0 ? "none of them called by the agent" : `${thousands(left.called)} of them called by the agent`;
  return `<tools_elided_${nonce}>[... ${thousands(left.count)} of ${thousands(total)} tool definitions elided by ipi-judge: ${thousands(left.chars)} characters; ${called} ...]`;
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** What {@link keptTools} decided: per tool whether it is shown, and what was left out. */
export interface ToolsCut {
  kept: Uint8Array;
  left: { count: number; chars: number; called: number };
}

/**
 * Which tool definitions to show within `room` characters (module docstring), or undefined when every one fits at its
 * minimum. Linear in the tools and their texts.
 * @param t the trajectory (its tools, calls and injected texts).
 * @param texts each tool definition's part text (`renderToolDefinition`), in the view's order.
 * @param names each definition's tool name, in the same order.
 * @param minLen each definition's length at its minimum size, its header and line end included, in the same order.
 * @param room characters the kept definitions may take (their minimum sizes), the marker line's excluded.
 */
export function keptTools(t: Pick<Trajectory, "messages" | "injections">, texts: readonly string[], names: readonly string[], minLen: ArrayLike<number>, room: number): ToolsCut | undefined {
  const T = texts.length;
  let all = 0;
  for (let k = 0; k < T; k++) all += minLen[k];
  if (all <= room || T < 2) return undefined;
  const called = new Set<string>();
  for (const m of t.messages) for (const c of m.tool_calls ?? []) if (typeof c?.name === "string") called.add(c.name);
  const injected = Object.values(t.injections ?? {}).filter((v): v is string => typeof v === "string" && v.trim().length >= 8);
  const rank = new Uint8Array(T); // 0 the injection's surface, 1 called, 2 the others
  for (let k = 0; k < T; k++) rank[k] = injected.some((v) => texts[k].includes(v)) ? 0 : called.has(names[k]) ? 1 : 2;
  const kept = new Uint8Array(T);
  for (let r = 0; r <= 2; r++)
    for (let k = 0; k < T; k++) {
      if (rank[k] !== r || minLen[k] > room) continue;
      kept[k] = 1;
      room -= minLen[k];
    }
  const left = { count: 0, chars: 0, called: 0 };
  for (let k = 0; k < T; k++) {
    if (kept[k]) continue;
    left.count++;
    left.chars += texts[k].length;
    if (called.has(names[k])) left.called++;
  }
  return { kept, left };
}
