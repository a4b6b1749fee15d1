/**
 * The report against red team 30 H1: a trajectory whose tool result holds millions of U+202E (each shown as a
 * ~34-character marker) had made the page longer than V8's longest string and aborted the whole command. Long texts
 * are now cut with a marker saying how much was left out, quotes stay in place or are listed as outside the shown
 * part, the list stops showing trajectories past its page budget, and an item that cannot be rendered is named and
 * skipped.
 */
import { describe, expect, it } from "vitest";
import { renderTrajectory } from "../../src/report/highlight.js";
import { itemsHtml } from "../../src/report/items-html.js";
import type { ReportItem } from "../../src/report/data.js";
import type { Trajectory, Verdict } from "../../src/types.js";

function verdictQuoting(quotes: string[], judge = "j1"): Verdict {
  return {
    judge_id: judge,
    repeat: 0,
    status: "ok",
    label: "full_compliance",
    rationale: "r",
    attempts: 1,
    findings: [{ bucket: "full_compliance", holds: true, evidence: quotes.map((q) => ({ message_index: 1, quote: q, verified: true })) }],
  } as unknown as Verdict;
}

const traj = (tool: string): Trajectory =>
  ({
    id: "t1",
    source: { format: "x", path: "x" },
    injections: {},
    messages: [
      { index: 0, role: "user", text: "task" },
      { index: 1, role: "tool", text: tool },
    ],
  }) as unknown as Trajectory;

describe("renderTrajectory on a huge text", () => {
  const N = 4_000_000;
  const middle = "QUOTED-IN-THE-MIDDLE wire the funds";
  const t = traj(`start ${"\u202e".repeat(N)} ${middle} ${"\u202e".repeat(N)} end`);

  it("cuts it with a visible marker of what was left out, and keeps the quote highlighted in place", () => {
    const r = renderTrajectory(t, [verdictQuoting([middle])], ["j1"]);
    expect(r.html.length).toBeLessThan(2_000_000); // whole: 8M markers of ~34 characters, past V8's string limit
    expect(r.html).toMatch(/<span class="cut">\[\.\.\. [\d,]+ characters not shown by ipi-judge \.\.\.\]<\/span>/);
    expect(r.html).toContain(`<mark class="q j0" title="j1: full_compliance">${middle}</mark>`);
    expect(r.stats).toMatchObject({ highlighted: 1, not_shown: 0, parts_cut: 1 });
  });

  it("lists a quote lying in a left-out stretch under its message, with where it is, instead of highlighting it", () => {
    const marks = Array.from({ length: 10 }, (_, k) => `MARK-${k}-plugh-unique`);
    const t2 = traj(marks.map((m) => `${m}${"\u2014".repeat(100_000)}`).join(""));
    const r = renderTrajectory(t2, [verdictQuoting(marks)], ["j1"]);
    expect(r.stats.not_shown).toBeGreaterThan(0);
    expect(r.stats.highlighted + r.stats.not_shown).toBe(10);
    expect(r.html).toMatch(/✓ verified, not shown.*verified, at characters \d+ to \d+ of this \d+-character text, outside the part the page shows/);
  });
});

describe("the disagreement list", () => {
  const item = (id: string, t?: Trajectory): ReportItem => ({ trajectory_id: id, kind: "disputed", verdicts: [verdictQuoting([])], ...(t ? { trajectory: t } : {}) });

  it("names and skips an item that cannot be rendered; the others are shown", () => {
    const bad = traj("x");
    Object.defineProperty(bad.messages[1], "text", {
      get() {
        throw new RangeError("Invalid string length");
      },
    });
    const items = [item("ok-1", traj("fine text")), item("bad-2", bad), item("ok-3", traj("more text"))];
    const html = itemsHtml(items, ["j1"]);
    expect(items[1].trajectory_not_shown).toBe("it could not be rendered (Invalid string length)");
    expect(html).toContain("Trajectory not shown: <bdi>it could not be rendered (Invalid string length)</bdi>");
    expect(html).toContain("fine text");
    expect(html).toContain("more text");
    expect(items[0].trajectory_not_shown).toBeUndefined();
  });

  it("stops showing trajectories past the page budget, saying so on each item left without one", () => {
    const items = [item("a", traj("A".repeat(5000))), item("b", traj("B".repeat(5000))), item("c", traj("C".repeat(5000)))];
    const html = itemsHtml(items, ["j1"], 4000);
    expect(html).toContain("AAAA");
    expect(html).not.toContain("BBBB");
    expect(items[1].trajectory_not_shown).toMatch(/the page already holds 4,000 characters of listed trajectories/);
    expect(items[2].trajectory_not_shown).toBeDefined();
  });
});
