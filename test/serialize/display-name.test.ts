/**
 * Long names are shortened for display only (red team 41: a very long tool, model or file name blew up the layout of
 * the annotators' markdown, the report and the view): cut as the report's chart labels are (`cutLabel`), the full
 * name still given (a fence in markdown, the `title` attribute in HTML).
 */
import { describe, expect, it } from "vitest";
import { displayName, NAME_DISPLAY_CHARS, omittedMarker } from "../../src/serialize/display-cut.js";
import { renderForHuman } from "../../src/serialize/render-human.js";
import { escapeHtml, nameHtml } from "../../src/report/escape.js";
import type { Trajectory } from "../../src/types.js";

const LONG = `gpt-${"x".repeat(300_000)}-end`;

describe("displayName", () => {
  it("keeps a name up to NAME_DISPLAY_CHARS, cuts a longer one around the marker keeping head and tail", () => {
    expect(displayName("gpt-4o")).toBe("gpt-4o");
    const d = displayName(LONG);
    expect(d.startsWith("gpt-x")).toBe(true);
    expect(d.endsWith("x-end")).toBe(true);
    expect(d).toContain(omittedMarker(LONG.length - NAME_DISPLAY_CHARS));
    expect(d.length).toBeLessThan(NAME_DISPLAY_CHARS + 60);
  });
});

describe("markdown (renderForHuman)", () => {
  it("a 300,000-character tool name: short headings, the full name once in a fence", () => {
    const t = {
      id: "long-names",
      source: { format: "chat-jsonl", path: "x.jsonl" },
      tools: [{ name: LONG, description: "d" }],
      messages: [
        { index: 0, role: "user", text: "hi" },
        { index: 1, role: "assistant", text: "", tool_calls: [{ id: "c1", name: LONG, arguments: "{}" }] },
        { index: 2, role: "tool", text: "ok", tool_name: LONG, tool_call_id: "c1" },
      ],
    } as Trajectory;
    const md = renderForHuman(t);
    const headings = md.split("\n").filter((l) => l.startsWith("#"));
    for (const l of headings) expect(l.length, l.slice(0, 80)).toBeLessThan(300);
    expect(md).toContain("Full name:");
    expect(md).toContain(LONG);
  });
});

describe("report cells (nameHtml)", () => {
  it("a long name is cut with the full one in title; a short one is only escaped", () => {
    expect(nameHtml("a<b")).toBe(escapeHtml("a<b"));
    const h = nameHtml(`${LONG}<script>`);
    expect(h.startsWith(`<span title="gpt-x`)).toBe(true);
    expect(h).toContain("&lt;script&gt;");
    expect(h).not.toContain("<script>");
    expect(h.slice(h.indexOf(">") + 1).length).toBeLessThan(NAME_DISPLAY_CHARS + 80);
  });
});
