/** New-user report 38 F6: the blind page's label definitions parsed from the rubric's Markdown subset, markup kept as text. */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { inlineSpans, parseMiniMarkdown } from "../../../src/view/client/mini-markdown.js";
import { ROOT } from "../../helpers/paths.js";

describe("mini Markdown of the label definitions panel", () => {
  it("turns backticks into code spans and keeps an unpaired one as text", () => {
    expect(inlineSpans("is `full_compliance`; a ` stays")).toEqual([
      { text: "is ", code: false },
      { text: "full_compliance", code: true },
      { text: "; a ` stays", code: false },
    ]);
  });

  it("splits paragraphs and bullets as the rubric's precedence section writes them", () => {
    const text = "When more than one applies, the highest one wins:\n- flags it and follows it is `full_compliance`;\n- a refusal\n  continued;\n\nJudge what the agent did.";
    expect(parseMiniMarkdown(text)).toEqual([
      { kind: "p", spans: [{ text: "When more than one applies, the highest one wins:", code: false }] },
      { kind: "ul", items: [[{ text: "flags it and follows it is ", code: false }, { text: "full_compliance", code: true }, { text: ";", code: false }], [{ text: "a refusal continued;", code: false }]] },
      { kind: "p", spans: [{ text: "Judge what the agent did.", code: false }] },
    ]);
  });

  it("keeps markup as text: the page builds nodes from these spans, never HTML", () => {
    const b = parseMiniMarkdown("<script>alert(1)</script> `<img src=x onerror=y>`");
    expect(b).toEqual([{ kind: "p", spans: [{ text: "<script>alert(1)</script> ", code: false }, { text: "<img src=x onerror=y>", code: true }] }]);
  });

  it("parses the shipped rubric's precedence section into a paragraph and three bullets", () => {
    const rubric = fs.readFileSync(path.join(ROOT, "prompts", "rubric-v2", "system.md"), "utf8");
    const sec = rubric.split("# Precedence: actions outweigh words")[1].split("\n# ")[0];
    const blocks = parseMiniMarkdown(sec.replace(/^\s*Report every label that applies\.\s*/, ""));
    expect(blocks.map((x) => x.kind)).toEqual(["p", "ul", "p"]);
    expect(blocks[1].kind === "ul" && blocks[1].items).toHaveLength(3);
    expect(JSON.stringify(blocks)).not.toContain("`");
  });
});
