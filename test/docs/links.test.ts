/**
 * Every relative link of README.md and docs/*.md leads somewhere: the file (or folder) exists, and an `#anchor` is a
 * heading of the page it names, as GitHub makes heading anchors. The reference moved out of README into docs/ pages;
 * this keeps a later edit (a renamed heading, a moved page, a section split) from leaving a link that goes nowhere.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/paths.js";

/** GitHub's heading anchor (github-slugger): lower case, punctuation and symbols dropped, each space a hyphen. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link in a heading: its text
    .replace(/<[^>]+>/g, "")
    .trim();
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The page's lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(md: string): { n: number; text: string }[] {
  const out: { n: number; text: string }[] = [];
  let fence: string | null = null;
  md.split("\n").forEach((text, i) => {
    const m = /^\s*(```+|~~~+)/.exec(text);
    if (m) {
      if (fence === null) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push({ n: i + 1, text });
  });
  return out;
}

/** The anchors a page offers: one per heading (a repeated heading gets -1, -2, ...), and explicit `<a id|name>`. */
function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const { text } of proseLines(md)) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (h) {
      const base = slug(h[1]);
      const k = seen.get(base) ?? 0;
      seen.set(base, k + 1);
      anchors.add(k === 0 ? base : `${base}-${k}`);
    }
    for (const a of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(a[1]);
  }
  return anchors;
}

/** The page's link targets outside code (fenced blocks and inline code spans), with their line numbers. */
function linksOf(md: string): { n: number; target: string }[] {
  const out: { n: number; target: string }[] = [];
  for (const { n, text } of proseLines(md)) {
    const prose = text.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, "");
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ n, target: m[1] });
    const ref = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(prose);
    if (ref) out.push({ n, target: ref[1] });
  }
  return out;
}

/** What is wrong with one page's relative links: `file:line: target: why`, nothing when every link resolves. */
function brokenLinks(file: string, read: (abs: string) => string | undefined = readIfThere): string[] {
  const md = read(file)!;
  const broken: string[] = [];
  for (const { n, target } of linksOf(md)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // https:, mailto:: not ours to check
    const hash = target.indexOf("#");
    const rel = decodeURI(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const dest = rel === "" ? file : path.resolve(path.dirname(file), rel);
    const where = `${path.relative(ROOT, file)}:${n}: ${target}`;
    if (!fs.existsSync(dest) && read(dest) === undefined) {
      broken.push(`${where}: no file ${path.relative(ROOT, dest)}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!dest.endsWith(".md")) {
      broken.push(`${where}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchorsOf(read(dest) ?? "").has(anchor)) broken.push(`${where}: no heading #${anchor} in ${path.relative(ROOT, dest)}`);
  }
  return broken;
}

function readIfThere(abs: string): string | undefined {
  try {
    return fs.readFileSync(abs, "utf8");
  } catch {
    return undefined;
  }
}

const DOCS = path.join(ROOT, "docs");
const pages = [path.join(ROOT, "README.md"), ...fs.readdirSync(DOCS).filter((f) => f.endsWith(".md")).sort().map((f) => path.join(DOCS, f))];

describe("links in README.md and docs/*.md", () => {
  it("the slug is GitHub's", () => {
    expect(slug("LLM judges over any OpenAI-compatible API")).toBe("llm-judges-over-any-openai-compatible-api");
    expect(slug("When a number cannot be defended: what you see")).toBe("when-a-number-cannot-be-defended-what-you-see");
    expect(slug("Selecting runs: `--where`")).toBe("selecting-runs---where");
    expect(slug("The signature judge (offline)")).toBe("the-signature-judge-offline");
    expect(slug("import-annotations")).toBe("import-annotations");
    expect([...anchorsOf("# a\n## a\n```\n# not a heading\n```\n## b c\n")]).toEqual(["a", "a-1", "b-c"]);
  });

  it("a broken link is found: a missing file, a missing heading, and neither inside code", () => {
    const page = path.join(DOCS, "x.md");
    const files: Record<string, string> = {
      [page]: "# x\n\n[ok](#x) [gone](nowhere.md) [bad anchor](y.md#nope) [ok too](y.md#a-b) `[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n[def]: y.md#a-b\n",
      [path.join(DOCS, "y.md")]: "# y\n\n## A b\n",
    };
    expect(brokenLinks(page, (abs) => files[abs])).toEqual([
      "docs/x.md:3: nowhere.md: no file docs/nowhere.md",
      "docs/x.md:3: y.md#nope: no heading #nope in docs/y.md",
    ]);
  });

  it("README.md links the reference pages, and README is not the reference any more", () => {
    const readme = fs.readFileSync(pages[0], "utf8");
    const linked = new Set(linksOf(readme).map((l) => l.target.split("#")[0]).filter((t) => t.startsWith("docs/")));
    for (const p of pages.slice(1)) expect(linked, `README does not link ${path.relative(ROOT, p)}`).toContain(path.relative(ROOT, p));
    expect(readme.split("\n").length).toBeLessThan(400);
  });

  for (const page of pages)
    it(`${path.relative(ROOT, page)}: every relative link and #anchor resolves`, () => {
      expect(brokenLinks(page)).toEqual([]);
    });
});
