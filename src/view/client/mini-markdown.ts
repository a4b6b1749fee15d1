/**
 * The tiny Markdown subset of the rubric's text shown on the blind page's "label definitions" panel (new-user report
 * 38 F6: it showed raw Markdown, backticks and "- " bullets run into one paragraph): paragraphs (blank-line
 * separated), "- " bullets, and `code` spans. Parsed into plain data here; the page builds DOM nodes from it with
 * text nodes only (never innerHTML), so a rubric file's `<script>` stays text.
 */

/** A run of text, `code` when it was between backticks. */
export interface Span {
  text: string;
  code: boolean;
}

/** A paragraph (its lines joined by spaces) or a bullet list (one item per "- " line). */
export type Block = { kind: "p"; spans: Span[] } | { kind: "ul"; items: Span[][] };

/** Split text into spans on backticks; an unpaired backtick is kept as text. */
export function inlineSpans(text: string): Span[] {
  const out: Span[] = [];
  const re = /`([^`]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index), code: false });
    out.push({ text: m[1], code: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), code: false });
  return out;
}

/**
 * Parse the subset: blank lines end a block; consecutive lines starting with "- " (or "* ") are one list, a line
 * that follows a bullet without a marker continues it; other lines join into a paragraph.
 */
export function parseMiniMarkdown(text: string): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  let list: string[] | null = null;
  const flush = () => {
    if (para.length) blocks.push({ kind: "p", spans: inlineSpans(para.join(" ")) });
    if (list) blocks.push({ kind: "ul", items: list.map(inlineSpans) });
    para = [];
    list = null;
  };
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.trim();
    if (line === "") {
      flush();
      continue;
    }
    const bullet = /^[-*]\s+(.*)$/.exec(line);
    if (bullet) {
      if (para.length) {
        blocks.push({ kind: "p", spans: inlineSpans(para.join(" ")) });
        para = [];
      }
      (list ??= []).push(bullet[1]);
    } else if (list) list[list.length - 1] += ` ${line}`;
    else para.push(line);
  }
  flush();
  return blocks;
}
