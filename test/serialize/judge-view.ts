/**
 * Reading the judge's view back (`renderForJudge`'s blocks), for the tests: each element is one nonce-bearing
 * header tag and runs to the next header or the end of its block (src/serialize/render.ts, module docstring).
 * The split is exact because the content cannot hold a live tag-like `<` (neutralized), so every header found is
 * ours; the tests then check the decoded texts against the parts.
 */
import { expect } from "vitest";
import { unneutralize } from "../../src/serialize/untrusted.js";

export interface ViewMessage {
  index: number;
  /** The header's attributes as written (` index="0" role="system"`...). */
  attrs: string;
  /** The message's text line, un-escaped; null when the message shows no text part. */
  text: string | null;
  calls: Array<{ attrs: string; text: string }>;
}
export type ViewMessages = ViewMessage[] & { gap?: { from: number; to: number; count: number } };

/** The messages-elided line of nonce `N`: a nonce-bearing header, then the text (`messageElisionMarker`). */
const marker = (N: string): RegExp => new RegExp(`<messages_elided_${N}>\\[\\.\\.\\. ([\\d,]+) messages? elided by ipi-judge: index (\\d+) to (\\d+) \\.\\.\\.\\]\\n$`);

/** Positions and attributes of every `<NAME_N ...>` header in `s`. */
function headers(s: string, name: string, N: string, nl: boolean): Array<{ at: number; end: number; attrs: string }> {
  const re = new RegExp(`<${name}_${N}([^>]*)>${nl ? "\\n" : ""}`, "g");
  return [...s.matchAll(re)].map((m) => ({ at: m.index!, end: m.index! + m[0].length, attrs: m[1] }));
}

/**
 * The messages of a trajectory block (after the optional tool list), each un-escaped, and the messages-elided
 * marker's range when there is one (the real one: the last line before a header whose index jumps to just past
 * it, or the whole body when every message is left out). Fails the test on any text outside an element.
 */
export function parseMessages(block: string, N: string): ViewMessages {
  const open = `<untrusted_trajectory_${N}>\n`;
  const close = `</untrusted_trajectory_${N}>`;
  expect(block.startsWith(open)).toBe(true);
  expect(block.endsWith(close)).toBe(true);
  let body = block.slice(open.length, -close.length);
  if (body.startsWith(`<tools_${N}>\n`)) {
    const end = body.indexOf(`</tools_${N}>\n`);
    expect(end).toBeGreaterThan(0);
    body = body.slice(end + `</tools_${N}>\n`.length);
  }
  const out: ViewMessages = [];
  const hs = headers(body, "message", N, true);
  const lead = body.slice(0, hs.length > 0 ? hs[0].at : body.length);
  if (lead !== "") {
    const m = marker(N).exec(lead);
    expect(m && m.index === 0, `text before the first message: ${lead.slice(0, 80)}`).toBe(true);
    out.gap = { count: Number(m![1].replace(/,/g, "")), from: Number(m![2]), to: Number(m![3]) };
  }
  hs.forEach((h, k) => {
    const index = Number(/^ index="(\d+)"/.exec(h.attrs)![1]);
    let inner = body.slice(h.end, k + 1 < hs.length ? hs[k + 1].at : body.length);
    const m = marker(N).exec(inner);
    const nextIndex = k + 1 < hs.length ? Number(/^ index="(\d+)"/.exec(hs[k + 1].attrs)![1]) : undefined;
    if (m && Number(m[2]) === index + 1 && (nextIndex === undefined || nextIndex === Number(m[3]) + 1)) {
      expect(out.gap).toBeUndefined(); // one marker at most
      out.gap = { count: Number(m[1].replace(/,/g, "")), from: Number(m[2]), to: Number(m[3]) };
      inner = inner.slice(0, m.index);
    }
    const cs = headers(inner, "tool_call", N, false);
    const textPart = cs.length === 0 ? inner : inner.slice(0, cs[0].at);
    const calls = cs.map((c, j) => {
      const raw = inner.slice(c.end, j + 1 < cs.length ? cs[j + 1].at : inner.length);
      expect(raw.endsWith("\n")).toBe(true);
      return { attrs: c.attrs, text: unneutralize(raw.slice(0, -1), N) };
    });
    if (textPart !== "") expect(textPart.endsWith("\n")).toBe(true);
    out.push({ index, attrs: h.attrs, text: textPart === "" ? null : unneutralize(textPart.slice(0, -1), N), calls });
  });
  return out;
}

/** The tool definitions of a trajectory block: [index, name attribute, un-escaped body]; `[]` without a tool list. */
export function parseTools(block: string, N: string): Array<[number, string, string]> {
  const open = `<untrusted_trajectory_${N}>\n<tools_${N}>\n`;
  if (!block.startsWith(open)) return [];
  const end = block.indexOf(`</tools_${N}>\n`);
  expect(end).toBeGreaterThan(0);
  const all = block.slice(open.length, end);
  // the line standing for definitions left out (src/serialize/tools-budget.ts) is the list's last line
  const marker = all.indexOf(`<tools_elided_${N}>`);
  if (marker >= 0) expect(all.indexOf("\n", marker)).toBe(all.length - 1);
  const body = marker >= 0 ? all.slice(0, marker) : all;
  const hs = headers(body, "tool_definition", N, true);
  expect(hs.length === 0 ? body : body.slice(0, hs[0].at)).toBe("");
  return hs.map((h, k) => {
    const m = /^ index="(\d+)" name="([^"]*)"$/.exec(h.attrs)!;
    const raw = body.slice(h.end, k + 1 < hs.length ? hs[k + 1].at : body.length);
    expect(raw.endsWith("\n")).toBe(true);
    return [Number(m[1]), m[2], unneutralize(raw.slice(0, -1), N)];
  });
}
