/**
 * The one text-table printer (src/format/text-table.ts): columns as wide as their widest cell, whatever it holds. agree's
 * rater table padded its kappa cells to 32 characters, so a kappa with its null reason pushed the rest of its row out
 * of line; every table printer of text output now goes through textTable.
 */
import { describe, expect, it } from "vitest";
import { cellWidth, padCell, textTable } from "../../src/format/text-table.js";
import { formatReferenceTable, referenceAgreement } from "../../src/agree/reference.js";
import { formatConfusion } from "../../src/agree/pairwise.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { Verdict } from "../../src/types.js";

/** The column at which `needle` starts on each line that holds it. */
const starts = (lines: string[], needle: RegExp) => lines.map((l) => l.search(needle)).filter((i) => i >= 0);

describe("textTable", () => {
  it("makes each column as wide as its widest cell, header included; right-aligned columns pad on the left", () => {
    const lines = textTable(
      [
        ["rater", "n", "kappa", "rest"],
        ["a", "5", "0.500 [0.1, 0.9]", "x"],
        ["a-much-longer-name", "12345", "undefined (no_variation_in_reference: every reference label is the same)", "y"],
      ],
      { align: ["left", "right"] },
    );
    const long = "undefined (no_variation_in_reference: every reference label is the same)";
    expect(lines[0]).toBe(`rater${" ".repeat(13)}      n  ${"kappa".padEnd(long.length)}  rest`);
    expect(new Set(starts(lines, /(rest|x|y)$/)).size).toBe(1);
    expect(lines[1]).toMatch(/^a {23}5 {2}0\.500/); // "a" padded to 18, the gap, "5" right-aligned in 5
  });
  it("counts code points, not UTF-16 units; trims trailing spaces; a short row leaves its last columns empty", () => {
    expect(cellWidth("𝒜b")).toBe(2);
    expect(padCell("𝒜", 3)).toBe("𝒜  ");
    expect(padCell("7", 3, "right")).toBe("  7");
    expect(textTable([["𝒜", "x"], ["bb", "y"], ["c"]], { indent: "  " })).toEqual(["  𝒜   x", "  bb  y", "  c"]);
    expect(textTable([["a", "b"]], { minWidths: [4], gap: " " })).toEqual(["a    b"]);
  });
});

describe("agree's rater table stays aligned with a long kappa cell", () => {
  const row = (id: string, security: boolean): TrajectoryIndexRow => ({ id, source: { format: "test", path: id }, attacked: true, reference: { security }, n_messages: 2, content_sha256: id }) as TrajectoryIndexRow;
  const verdict = (judge: string, id: string, label: Verdict["label"]): Verdict => ({ trajectory_id: id, judge_id: judge, repeat: 0, status: "ok", label }) as Verdict;
  it("a kappa that is null with its reason (every reference verdict the same) does not push the next columns", () => {
    // one-sided reference: kappa null with a reason, far longer than the 32 characters the cell was padded to
    const index = new Map(["a", "b", "c", "d"].map((id) => [id, row(id, true)]));
    const flat = referenceAgreement("flat", ["a", "b", "c", "d"].map((id) => verdict("flat", id, "unaffected")), index);
    const varied = new Map([["a", row("a", true)], ["b", row("b", false)], ["c", row("c", true)], ["d", row("d", false)]]);
    const good = referenceAgreement("good-judge", [verdict("good-judge", "a", "full_compliance"), verdict("good-judge", "b", "unaffected"), verdict("good-judge", "c", "full_compliance"), verdict("good-judge", "d", "unaffected")], varied);
    const lines = formatReferenceTable([flat, good]).split("\n");
    const [c2, c3, c4] = ["kappa asr_goal", "kappa asr_behaviour", "asr_goal vs"].map((h) => lines[0].indexOf(h));
    // the case: the flat judge's asr_goal kappa cell is longer than the 32 characters it used to be padded to
    expect(lines[2].slice(c2, c3).trimEnd().length).toBeGreaterThan(32);
    // the header's two lines (session 40: on one, 112 columns for 5-character kappas)
    expect(lines.slice(0, 2).map((l) => l.trimEnd())).toEqual([expect.stringMatching(/^rater +n +kappa asr_goal +kappa asr_behaviour +asr_goal vs$/), expect.stringMatching(/^ +\(full_compliance\) +\(compromised\) +security rate$/)]);
    for (const l of lines.slice(2)) {
      for (const c of [c3, c4]) {
        expect(l.slice(c - 2, c), l).toBe("  ");
        expect(l[c], l).not.toBe(" ");
      }
    }
  });
});

describe("the confusion matrix stays aligned with counts of any size", () => {
  it("a count in the millions widens its column", () => {
    const lines = formatConfusion({ categories: ["yes", "no"], table: [[12345678, 2], [3, 4]], rows: "judge", cols: "human" } as never, "");
    expect(lines.slice(1).map((l) => l.length)).toEqual([lines[1].length, lines[1].length, lines[1].length]);
    expect(lines[2]).toBe(`yes      12345678      2`); // label column 8 + gap, counts at least 6 wide
  });
});

describe("compare's rows stay aligned with a condition name longer than the 28 characters its column had", () => {
  it("every row's figures start at one column", async () => {
    const { compareConditions, formatCompare } = await import("../../src/compare/index.js");
    const long = "spotlighting_with_delimiting_and_a_long_suffix";
    const obs = ["a", "bb"].flatMap((model) =>
      ["none", long].flatMap((condition, ci) =>
        Array.from({ length: 10 }, (_, i) => ({ trajectory_id: `${model}/${condition}/${i}`, model, suite: "s1", condition, injection_task: `s1/inj${i % 3}`, unit: `s1/u${i}`, compromised: i < 3 + ci, goal: i < 2 + ci })),
      ),
    );
    const text = formatCompare(compareConditions({ source: { kind: "judge", judge_id: "j" }, condition_field: "condition", observations: obs, n_total: 40, excluded: {} }, { bootstrap: { B: 0, seed: 1 } }));
    const all = text.split("\n").filter((l) => /^ {2}\S+ +\S+ +asr_goal /.test(l));
    // the rows, then each model's difference from the baseline (`asr_goal +10.0 pp [...`): one column for all six
    const rows = all.filter((l) => !/ asr_goal [+-]?\d+\.\d pp \[/.test(l));
    expect(rows.length).toBe(4);
    expect(all.length).toBe(6);
    expect(new Set(all.map((l) => l.indexOf(" asr_goal "))).size).toBe(1);
    expect(rows.some((l) => l.includes(long))).toBe(true);
  });
});

describe("wrappedTable: a table wider than the terminal in blocks of columns (session 40: estimate --table ran to 267)", () => {
  const rows = [
    ["model", "condition", "asr_goal %", "asr_behaviour %", "blocked"],
    ["gpt-4o", "no_defense", "53.6 [42.0, 64.9]", "53.6 [42.0, 64.9]", "1/3 (refused 0, unavailable 0, failed 1)"],
    ["llama", "tool_filter", "7.8 [5.9, 10.2]", "13.8 [11.4, 16.7]", "0/0"],
  ];
  it("fits: the lines of textTable, one block; no width: the same", async () => {
    const { wrappedTable, wrapHint } = await import("../../src/format/text-table.js");
    expect(wrappedTable(rows, { width: 200, keep: 2 })).toEqual({ lines: textTable(rows), blocks: 1 });
    expect(wrappedTable(rows, { keep: 2 })).toEqual({ lines: textTable(rows), blocks: 1 });
    expect(wrapHint(1, 80, "its model")).toBe("");
  });
  it("too wide: blocks that each fit, every one repeating the named columns and the header, columns as wide as in the whole", async () => {
    const { wrappedTable, wrapHint } = await import("../../src/format/text-table.js");
    const { lines, blocks } = wrappedTable(rows, { width: 60, keep: 2 });
    expect(blocks).toBe(2);
    expect(lines).toEqual([
      "model   condition    asr_goal %         asr_behaviour %",
      "gpt-4o  no_defense   53.6 [42.0, 64.9]  53.6 [42.0, 64.9]",
      "llama   tool_filter  7.8 [5.9, 10.2]    13.8 [11.4, 16.7]",
      "",
      // a column wider than what is left beside the names gets a block of its own, even past the width
      "model   condition    blocked",
      "gpt-4o  no_defense   1/3 (refused 0, unavailable 0, failed 1)",
      "llama   tool_filter  0/0",
    ]);
    expect(lines.filter((l) => l.startsWith("model ")).length).toBe(blocks);
    for (const l of lines) if (!l.includes("unavailable")) expect(l.length).toBeLessThanOrEqual(60);
    // every cell of the whole is in some block, on its row's line
    for (const r of rows.slice(1)) for (const c of r.slice(2)) expect(lines.some((l) => l.startsWith(r[0]) && l.includes(c))).toBe(true);
    expect(wrapHint(blocks, 60, "its model and condition")).toBe(
      "(the table is wider than the terminal's 60 columns: printed in 2 blocks of columns, each line named by its model and condition; --csv and --json give one line per row)",
    );
  });
});

describe("tables that grew past 80 or 100 columns with nothing said (session 40)", () => {
  it("a confusion matrix over the six buckets numbers its columns as the rows: within 80 columns, no name cut", () => {
    const cats = ["full_compliance", "partial_compliance", "flagged_refusal", "task_refusal", "unaffected", "not_exposed"];
    const lines = formatConfusion({ categories: cats, table: cats.map((_, i) => cats.map((__, j) => (i === j ? 1234 : 5))), rows: "judge", cols: "human" } as never, "  ");
    expect(lines[0]).toBe("  rows: judge; columns: human (numbered as the rows)");
    expect(lines[1]).toBe(" ".repeat(28) + ["(1)", "(2)", "(3)", "(4)", "(5)", "(6)"].join("    "));
    expect(lines[3]).toBe("  (2) partial_compliance      5   1234      5      5      5      5");
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
    // three categories or fewer keep their names as column headers
    expect(formatConfusion({ categories: ["complied", "refused", "unaffected"], table: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], rows: "a", cols: "b" } as never, "")[1]).toBe(" ".repeat(11) + "complied refused unaffected");
  });
});
