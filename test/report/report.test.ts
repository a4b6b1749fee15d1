import { isLikeForLikeWarning } from "../../src/stats/like-for-like.js";
import { cellText, coverageWithheld, type PaperTable } from "../../src/estimate/table.js";
import { sameRowsCommand } from "../../src/report/same-rows.js";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildReportModel, renderReportHtml, scriptHash, writeReport, type ReportModel } from "../../src/report/index.js";
import { labelRun } from "../../src/run/label.js";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { buildCommitteeFixture, fixtureJudges, HOSTILE_ID, HOSTILE_MODEL, PAYLOAD, type CommitteeFixture } from "./fixture.js";
import { DATA, SAMPLES } from "../helpers/paths.js";
import { compareTwoRaters, formatTwoRater } from "../../src/agree/pairwise.js";
import { humanDesignNoteHtml, humanForestRows, humanTableHtml, runKappa } from "../../src/report/human-agreement-html.js";

let tmp: string;
let fx: CommitteeFixture;
let model: ReportModel;
let html: string;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-report-"));
  fx = await buildCommitteeFixture(tmp);
  model = await buildReportModel({ runDir: fx.runDir, run: fx.run, humanFile: fx.humanFile, bootstrap: { B: 200, seed: 3 } });
  html = await renderReportHtml(model);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("report data of a committee run with human labels", () => {
  it("has every section's input", () => {
    expect(model.judges.map((j) => j.id)).toEqual(["lenient-a", "signature", "strict-b"]);
    expect(model.committee?.source).toBe("committee.jsonl");
    expect(model.human?.annotators).toEqual(["alice", "bob"]);
    expect(model.human?.judges.map((j) => j.rater)).toEqual(["lenient-a", "signature", "strict-b", "committee"]);
    expect(model.reference?.map((r) => r.judge_id)).toEqual(["lenient-a", "signature", "strict-b", "committee"]);
    expect(model.trajectories).toBe(83);
  });

  it("computes asr_goal and asr_behaviour per (model, condition) per rater from the labels, with Wilson intervals and coverage", () => {
    const sig = fx.verdicts.filter((v) => v.judge_id === "signature" && v.attacked && v.repeat === 0);
    for (const row of model.asr.filter((r) => r.rater === "signature")) {
      const mine = sig.filter((v) => (v.agent_model ?? "(none)") === row.model && (v.condition ?? "(none)") === row.condition);
      const ok = mine.filter((v) => v.status === "ok");
      expect(row.asr_behaviour.n).toBe(ok.length);
      expect(row.asr_behaviour.count).toBe(ok.filter((v) => v.compromised).length);
      expect(row.asr_goal.count).toBe(ok.filter((v) => v.label === "full_compliance").length);
      expect(row.labelled).toBe(ok.length);
      // newuser16: the exposure column with its count, as every other rate
      expect(row.exposed).toBe(ok.filter((v) => v.label !== "not_exposed").length);
      if (row.exposure !== null) expect(row.exposure).toBeCloseTo(row.exposed / row.labelled, 12);
      for (const f of [row.asr_goal, row.asr_behaviour]) {
        expect(f.ci95!.lower).toBeLessThanOrEqual(f.rate!);
        expect(f.ci95!.upper).toBeGreaterThanOrEqual(f.rate!);
      }
    }
    const shown = model.asr.find((r) => r.exposure !== null)!;
    // the coverage cell, then the exposure cell with its count
    expect(html).toMatch(new RegExp(`\\(${shown.labelled}/${shown.attacked}\\)(?: <strong[^<]*</strong>)?</td><td class="num"><bdi>[0-9.]+%</bdi> \\(${shown.exposed}/${shown.labelled}\\)</td>`));
    const committee = model.asr.filter((r) => r.rater === "committee");
    expect(committee.reduce((s, r) => s + r.labelled, 0)).toBe(model.committee!.summary.attacked_ok);
  });

  it("lists disputed trajectories first, then the non-unanimous ones, each with its trajectory", () => {
    const c = model.committee!.verdicts;
    expect(model.items_total).toBe(c.filter((x) => x.status === "disputed" || (x.status === "ok" && !x.unanimous)).length);
    // the listed items on unattacked trajectories are counted, so the list reconciles with the committee's "not
    // unanimous on K of N attacked" (new-user report 17); items are capped, so count them from the listed ones only when all are
    expect(model.items_unattacked).toBeTypeOf("number");
    if (model.items.length === model.items_total) expect(model.items_unattacked).toBe(model.items.filter((i) => i.row?.attacked === false).length);
    const kinds = model.items.map((i) => i.kind);
    expect(kinds.indexOf("not_unanimous")).toBeGreaterThan(kinds.lastIndexOf("disputed"));
    expect(model.items.find((i) => i.trajectory_id === HOSTILE_ID)?.kind).toBe("disputed");
    for (const it of model.items) {
      expect(it.trajectory, it.trajectory_error).toBeDefined();
      expect(it.verdicts.length).toBeGreaterThan(0);
    }
  });

  it("shows asr_goal and asr_behaviour by attack (the samples hold three attacks)", () => {
    expect(model.conditions.filter((c) => c.field === "attack").map((c) => c.rate)).toEqual(["asr_goal", "asr_behaviour"]);
    const attack = model.conditions.find((c) => c.field === "attack");
    expect(attack).toBeDefined();
    // like for like (session 52): each model's attacks on the cells they all ran; the models that ran several attacks on
    // different samples share none, so they are withheld with why, not shown over each attack's own tasks
    expect(attack!.population).toEqual({ kind: "like_for_like" });
    expect(new Set(attack!.cells.map((c) => c.condition))).toEqual(new Set(["important_instructions"]));
    expect(attack!.withheld?.length).toBeGreaterThan(0);
    for (const w of attack!.withheld!) expect(w.reason).toMatch(/^no like-for-like cell: ".*": its conditions share no \(suite, user_task_id, injection_task_id\) cell/);
    expect(model.condition_source).toBe("committee");
  });
});

describe("report HTML", () => {
  it("is self-contained: one inline script allowed by its hash, inline SVG charts, no external resource", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    const scripts = html.match(/<script\b/gi) ?? [];
    expect(scripts).toHaveLength(1);
    const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)![1];
    expect(csp).toContain(`script-src '${scriptHash()}'`);
    expect(csp).toContain("default-src 'none'");
    const body = html.match(/<script>([\s\S]*?)<\/script>/)![1];
    expect(`sha256-${createHash("sha256").update(body).digest("base64")}`).toBe(scriptHash());
    expect((html.match(/<svg\b/g) ?? []).length).toBeGreaterThanOrEqual(12);
    // Every literal "<" is real markup (untrusted text is escaped), so checking the tags checks the page.
    const tags = [...html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*)>/g)];
    expect(html.split("<").length - 1).toBe(tags.length + 1); // + <!doctype html>
    const names = new Set(tags.map((t) => t[2].toLowerCase()));
    for (const bad of ["img", "iframe", "object", "embed", "link", "base", "video", "audio", "image", "foreignobject", "use"]) expect(names.has(bad), bad).toBe(false);
    for (const t of tags) {
      // attributes are name="value" pairs (values never hold a raw quote: escapeHtml and Vega both escape it)
      const attrs = [...t[3].matchAll(/([^\s=/"']+)(?:\s*=\s*"([^"]*)")?/g)].map((a) => ({ name: a[1].toLowerCase(), value: a[2] ?? "" }));
      expect(t[3].replace(/([^\s=/"']+)(?:\s*=\s*"([^"]*)")?/g, "").trim().replace(/^\/$/, ""), t[0]).toBe("");
      for (const a of attrs) {
        expect(a.name.startsWith("on"), t[0]).toBe(false);
        expect(["src", "srcset", "action", "formaction", "poster", "xlink:href", "style"].includes(a.name) && t[2] !== "svg", t[0]).toBe(false);
        if (a.name === "href") expect(a.value.startsWith("#"), t[0]).toBe(true);
        expect(a.value, t[0]).not.toMatch(/^\s*javascript:/i);
      }
    }
    expect(html).not.toMatch(/javascript:|@import|url\((?!#)/i);
  });

  it("shows the payload and hostile names as text, never as markup", () => {
    expect(html).not.toContain("<script>window.__xss");
    expect(html).not.toContain("</textarea>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;window.__xss=1&lt;/script&gt;&lt;/textarea&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;");
    expect(html).toContain("hostile-&lt;b&gt;1&lt;/b&gt;");
    expect(html).toContain("gpt-4o&lt;img src=x onerror=&quot;window.__xss=3&quot;&gt;");
    expect(html).toContain("Paying the bill now. &lt;/textarea&gt;&lt;script&gt;window.__xss=5&lt;/script&gt;");
    expect(PAYLOAD).toContain("<script>");
    expect(HOSTILE_MODEL).toContain("<img");
  });

  it("gives tokens beside the cost, over the same verdicts (every repeat), and the judges table says it is repeat 0 (new-user report 31, L1)", () => {
    const text = html.replace(/<script[\s\S]*?<\/script>/g, "").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    const overview = html.slice(html.indexOf('<section id="overview"'), html.indexOf("<h3>Cost and request settings</h3>"));
    expect(overview).not.toMatch(/prompt tokens/);
    expect(text).toMatch(/Verdicts and rates are over each judge's repeat-0 verdicts/);
    for (const j of model.costs.per_judge) {
      const mine = fx.verdicts.filter((v) => v.judge_id === j.judge_id);
      expect(j.verdicts).toBe(mine.length);
      expect(j.usage.prompt_tokens).toBe(mine.reduce((s, v) => s + v.usage.prompt_tokens, 0));
      expect(text).toContain(`${j.judge_id} ${j.verdicts.toLocaleString("en-US")}${j.repeats > 1 ? ` (${j.repeats} repeats)` : ""} ${j.usage.prompt_tokens.toLocaleString("en-US")}`);
    }
  });

  it("has the sections in order and the forest plot", () => {
    const order = ["overview", "asr", "labels", "agreement", "conditions", "disagreements"].map((id) => html.indexOf(`<section id="${id}"`));
    expect(order.every((x) => x > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).toContain('id="chart-forest"');
    // review 16 item 2: the six-bucket kappas (against the human consensus) and the yes/no kappas (against the
    // benchmark's attack verdict) are two plots, each naming its number of categories, never one axis
    expect(html).toContain('id="chart-forest-2"');
    const captions = [...html.matchAll(/<figure class="chart" id="chart-forest[^"]*"><figcaption><bdi>([^<]*)</g)].map((m) => m[1]);
    expect(captions).toHaveLength(2);
    expect(captions[0]).toContain("over 6 categories (the six buckets): not comparable");
    expect(captions[1]).toContain("over 2 categories (yes/no");
    const second = html.slice(html.indexOf('id="chart-forest-2"'));
    expect(second.slice(0, second.indexOf("</figure>"))).not.toContain("vs human consensus");
    expect(html).toContain('id="heatmaps-human"');
    expect(html).toContain('id="heatmaps-reference"');
  });

  it("against the human consensus, leads with the design-weighted kappa (the run's figure) and names the sample's figures so (break55 #1)", async () => {
    const h = model.human!;
    expect(h.judges.every((j) => j.design_weighted)).toBe(true); // the fixture's label file carries its design
    const unescape = (x: string) => x.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    const page = unescape(html);
    expect(page).toContain("kappa, design-weighted: the run's figure (SE) [95% Wald CI]");
    expect(page).toContain("Cohen's kappa, unweighted (sample as drawn: not the run's figure)");
    expect(page).toContain("missed compromises (sample as drawn)");
    for (const j of h.judges) {
      const w = runKappa(j)!;
      const d = j.design_weighted!.kappa;
      expect(w.value).toBe(d.value);
      if (d.value !== null && d.se) expect(w.ci).toEqual({ lower: Math.max(-1, d.value - 1.96 * d.se), upper: Math.min(1, d.value + 1.96 * d.se) });
      if (j.unweighted.n_used > 0 && j.unweighted.kappa.note === undefined) expect(page).toContain(`${j.rater} vs human consensus: design-weighted kappa ${d.value!.toFixed(3)} (the run's figure); the counts: the sample as drawn, n ${j.unweighted.n_used}`);
    }
    const forests = humanForestRows(h);
    expect(forests.length).toBeGreaterThan(0);
    for (const r of forests) expect(r.label).toMatch(/ vs human consensus \(design-weighted\)$/);
    expect(page).toContain("against the human consensus: the design-weighted kappa (the run's figure");
    // without a design in the label file: the unweighted kappa is the only one, named so, and no run column
    const bare = structuredClone(h);
    for (const j of bare.judges) j.design_weighted = null;
    expect(humanTableHtml(bare)).not.toContain("design-weighted");
    expect(humanTableHtml(bare)).toContain("Cohen's kappa (unweighted)");
    expect(humanForestRows(bare).every((r) => r.label.endsWith("(unweighted)"))).toBe(true);
    expect(humanDesignNoteHtml(bare)).toBe("");
  });

  it("a kappa 0 by construction is left out of the forest plot and said, whichever side gave one category (red team 30, M5)", async () => {
    // the judge's one category (the h1 run: everything full_compliance) and the reference's, side by side
    const m = structuredClone(model);
    const [r0, r1] = m.reference!;
    Object.assign(r0, { kappa: 0, kappa_note: "rater_one_category", kappa_ci95: null, kappa_ci95_reason: "rater_one_category" });
    Object.assign(r1, { kappa: 0, kappa_note: "reference_one_category", kappa_ci95: null, kappa_ci95_reason: "reference_one_category" });
    const h0 = m.human!.judges[0];
    h0.unweighted.kappa = { ...h0.unweighted.kappa, value: 0, note: "rater_one_category" };
    const page = await renderReportHtml(m);
    expect(page).toContain(`${r0.judge_id} vs benchmark security: kappa 0.000 (0 by construction: the rater gave one category only), n ${r0.n_used}`);
    expect(page).toContain(`${r1.judge_id} vs benchmark security: kappa 0.000 (0 by construction: the reference gave one category only), n ${r1.n_used}`);
    // the caption leads with the run's (design-weighted) kappa, 0 by construction too: the same labels weighted (break55 #1)
    expect(h0.design_weighted).not.toBeNull();
    const plain = page.replace(/&#39;/g, "'");
    expect(plain).toContain(`${h0.rater} vs human consensus: design-weighted kappa ${h0.design_weighted!.kappa.value!.toFixed(3)} (0 by construction: the rater gave one category only) (the run's figure)`);
    expect(plain).toContain(`unweighted kappa 0.000 (not the run's figure)`);
    const forests = [...page.matchAll(/<figure class="chart" id="chart-forest[^"]*">[\s\S]*?<\/figure>/g)].map((x) => x[0]).join("");
    for (const gone of [`${r0.judge_id} vs benchmark`, `${r1.judge_id} vs benchmark`, `${h0.rater} vs human consensus`]) expect(forests).not.toContain(gone);
    expect(forests).toContain(`${m.reference![2].judge_id} vs benchmark`);
  });
});

describe("FEW ITEMS in the report's kappa tables, as the CLI says it (session 46)", () => {
  it("a 2 x 2 kappa on a category used 1-4 times is marked in its cell and caption, with the CLI's line in a box; a six-bucket kappa never", async () => {
    // the rule is the CLI's (compareTwoRaters, ../stats/few-in-category.ts): a 1/0/0/29 table
    const a = ["yes", ...Array(29).fill("no")];
    const two = compareTwoRaters(a, [...a], ["yes", "no"], { names: ["j", "human consensus"] });
    expect(two.few_in_category).toBeDefined();
    const cliLine = formatTwoRater(two, "").find((l) => l.startsWith("FEW ITEMS"))!;
    const m = structuredClone(model);
    const [r0] = m.reference!;
    r0.few_in_category = two.few_in_category;
    r0.binary.few_in_category = two.few_in_category;
    // the fixture's human scale is the six buckets: 6 x 6 tables, never flagged (docs/agree.md), so none of its raters is
    expect(m.human!.scale).toBe("six");
    expect(m.human!.judges.every((j) => j.unweighted.few_in_category === undefined)).toBe(true);
    expect(html).not.toContain("FEW ITEMS");
    const h0 = m.human!.judges[0];
    h0.unweighted = { ...h0.unweighted, few_in_category: two.few_in_category };
    const page = await renderReportHtml(m);
    const unescape = (x: string) => x.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    const boxes = [...page.matchAll(/<div class="warn few-items"><bdi>([^<]*)<\/bdi><\/div>/g)].map((x) => unescape(x[1]));
    expect(boxes).toEqual([`${h0.rater}: ${cliLine}`, `${r0.judge_id} (kappa, asr_goal): ${cliLine}`, `${r0.judge_id} (binary kappa, asr_behaviour): ${cliLine}`]);
    expect(page).toContain(`${r0.judge_id} vs benchmark security: kappa ${r0.kappa!.toFixed(3)} (FEW ITEMS), n ${r0.n_used}`);
    expect(page).toMatch(new RegExp(`${h0.rater} vs human consensus: design-weighted kappa [^<]*unweighted kappa -?[0-9.]+ \\(FEW ITEMS\\)`));
    expect(page.match(/\(FEW ITEMS\)<\/td>/g)).toHaveLength(3); // the human row's kappa, the reference row's kappa and binary kappa
  });
});

describe("report of a single-judge run without human labels", () => {
  it("shows what is available: no committee, the benchmark comparison, judge-vs-benchmark disagreements", async () => {
    const labelsDir = path.join(tmp, "single");
    await labelRun({ inputs: [SAMPLES], run: "one", labelsDir, judges: [createSignatureJudge()] });
    const out = path.join(tmp, "single.html");
    const r = await writeReport({ runDir: path.join(labelsDir, "one"), out, bootstrap: { B: 0, seed: 1 } });
    expect(r.model.committee).toBeNull();
    expect(r.model.human).toBeNull();
    expect(r.model.reference).toHaveLength(1);
    expect(r.model.items.every((i) => i.kind === "reference_disagreement")).toBe(true);
    expect(r.model.items_total).toBe(r.model.reference![0].disagreements.length);
    const page = fs.readFileSync(out, "utf8");
    expect(page).toContain("One judge: no committee section");
    expect(page).toContain("No human labels given");
    expect(page).not.toContain('<section id="disagreements"><h2>Committee');
    expect(fs.existsSync(`${out}.${process.pid}.tmp`)).toBe(false);
  });

  it("says why a trajectory cannot be shown when its source file is gone", async () => {
    const labelsDir = path.join(tmp, "moved");
    const src = path.join(tmp, "moved-src");
    fs.cpSync(SAMPLES, src, { recursive: true });
    await labelRun({ inputs: [src], run: "m", labelsDir, judges: fixtureJudges() });
    const before = await buildReportModel({ runDir: path.join(labelsDir, "m"), bootstrap: { B: 0, seed: 1 } });
    expect(before.items.length).toBeGreaterThan(0);
    expect(before.items.every((i) => i.trajectory)).toBe(true);
    fs.rmSync(src, { recursive: true });
    const m = await buildReportModel({ runDir: path.join(labelsDir, "m"), bootstrap: { B: 0, seed: 1 } });
    expect(m.items.length).toBe(before.items.length);
    for (const it of m.items) {
      expect(it.trajectory).toBeUndefined();
      expect(it.trajectory_error).toMatch(/^source file not found: /);
    }
    const page = await renderReportHtml(m);
    expect(page).toContain("Trajectory not shown: <bdi>source file not found:");
  });
});

describe("report when a trajectory's source changed since labelling", () => {
  const itemOf = (page: string, id: string) => page.split('<details class="item"').find((x) => x.includes(`<span class="tid"><bdi>${id}</bdi></span>`)) ?? "";
  const escId = "hostile-&lt;b&gt;1&lt;/b&gt;";
  const withFile = async (text: string) => {
    const orig = fs.readFileSync(fx.hostileFile, "utf8");
    fs.writeFileSync(fx.hostileFile, text);
    try {
      const m = await buildReportModel({ runDir: fx.runDir, run: fx.run, bootstrap: { B: 0, seed: 1 } });
      return { m, page: await renderReportHtml(m), it: m.items.find((i) => i.trajectory_id === HOSTILE_ID)! };
    } finally {
      fs.writeFileSync(fx.hostileFile, orig);
    }
  };

  it("unchanged: highlighted, no warning", () => {
    const it = model.items.find((i) => i.trajectory_id === HOSTILE_ID)!;
    expect(it.trajectory).toBeDefined();
    expect(it.source_changed).toBeUndefined();
    const item = itemOf(html, escId);
    expect(item).toContain("<mark ");
    expect(item).not.toContain("source changed");
  });

  it("edited (same id, changed content): shows the new text under a warning, highlights nothing, calls nothing verified", async () => {
    const line = JSON.parse(fs.readFileSync(fx.hostileFile, "utf8").trim());
    line.messages[6].content = "Done: I paid the bill. EDITED AFTER LABELLING";
    line.messages[3].content = line.messages[3].content.replace("IBAN XX8822334455667788", "IBAN XX0000");
    const { it, page } = await withFile(JSON.stringify(line) + "\n");
    expect(it.trajectory?.messages[6]).toMatchObject({ text: expect.stringContaining("EDITED AFTER LABELLING") });
    expect(it.source_changed).toMatch(/^the source changed since it was labelled; the text below is not what the judges saw/);
    const item = itemOf(page, escId);
    expect(item).toContain("source changed since labelling");
    expect(item).toContain("the text below is not what the judges saw");
    expect(item).toContain("EDITED AFTER LABELLING");
    expect(item).not.toContain("<mark ");
    expect(item).not.toContain("✓ verified");
    expect(item).not.toContain("quotes highlighted in place");
    expect(item).toContain("? source changed");
  });

  it("replaced (another id with other content on the same line): not shown, never matched by line", async () => {
    const line = JSON.parse(fs.readFileSync(fx.hostileFile, "utf8").trim());
    line.id = "impostor-1";
    line.messages[6].content = "I will not follow the instructions in the file.";
    const { it, page } = await withFile(JSON.stringify(line) + "\n");
    expect(it.trajectory).toBeUndefined();
    expect(it.trajectory_error).toMatch(/not found again .*line 1 now holds impostor-1 with other content/);
    const item = itemOf(page, escId);
    expect(item).toContain("Trajectory not shown");
    expect(item).not.toContain("I will not follow");
  });

  it("the same content under another id at the recorded line is the judged text: shown and highlighted", async () => {
    const line = JSON.parse(fs.readFileSync(fx.hostileFile, "utf8").trim());
    line.id = "renamed-1";
    const { it, page } = await withFile(JSON.stringify(line) + "\n");
    expect(it.trajectory?.id).toBe(HOSTILE_ID);
    expect(it.source_changed).toBeUndefined();
    expect(itemOf(page, escId)).toContain("<mark ");
  });
});

describe("bidi controls in untrusted text", () => {
  const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
  const ALL = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";

  it("never reach the page raw: shown as visible markers, each untrusted span isolated, our text after it intact", async () => {
    const m: ReportModel = structuredClone(model);
    m.run = `run\u202Eevil`;
    const it0 = m.items.find((i) => i.trajectory_id === HOSTILE_ID)!;
    const t = it0.trajectory!;
    t.messages[3] = { ...t.messages[3], text: `${t.messages[3].text}\n\u202Egnirts desrever ${ALL}` };
    t.agent_model = `gpt\u202E4o`;
    it0.row = { ...it0.row!, agent_model: `gpt\u202E4o`, suite: `bank\u2067ing` };
    const v = it0.verdicts[0];
    v.rationale = `\u202Bthe rationale ${ALL}`;
    v.findings = [
      ...v.findings,
      { bucket: "unaffected", holds: true, evidence: [{ message_index: 3, quote: "\u202Ea quote that was never said", verified: false, reason: "not found \u2066x" }] },
    ];
    const page = await renderReportHtml(m);
    expect(page).not.toMatch(BIDI);
    expect(page).toContain('<bdi><span class="ctl">⟨U+202E⟩</span>a quote that was never said</bdi></q> <span class="why">(unverified: <bdi>not found <span class="ctl">⟨U+2066⟩</span>x</bdi>)</span>');
    expect(page).toContain('gnirts desrever <span class="ctl">⟨U+202A⟩</span><span class="ctl">⟨U+202B⟩</span>');
    expect(page).toContain(`<span class="ctl">⟨U+061C⟩</span>`);
    expect(page).toContain("<title>ipi-judge report: run⟨U+202E⟩evil</title>");
    expect(page).toContain("<h1>ipi-judge report — run <bdi>run<span class=\"ctl\">⟨U+202E⟩</span>evil</bdi></h1>");
    // Every marker sits inside an isolate (<bdi>) or an attribute/title, never loose in our own text.
    const outside = page.replace(/<bdi>[\s\S]*?<\/bdi>/g, "").replace(/"[^"<>]*"/g, "").replace(/<title>.*<\/title>/, "");
    expect(outside).not.toContain("⟨U+");
  });

  it("escape functions: markers in text (as spans) and in attributes (as text)", async () => {
    const { escapeAttr, escapeText, neutralizeBidi } = await import("../../src/report/escape.js");
    for (const c of ALL) {
      const hex = c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      expect(escapeText(`a${c}b`)).toBe(`a<span class="ctl">⟨U+${hex}⟩</span>b`);
      expect(escapeAttr(`a${c}b`)).toBe(`a⟨U+${hex}⟩b`);
      expect(neutralizeBidi(`<text>a${c}b</text>`)).toBe(`<text>a⟨U+${hex}⟩b</text>`);
    }
  });
});

describe("report of the AgentDyn slice (test/data/agentdyn): a condition without a usable label is named", () => {
  it("the conditions view lists drift (its one attacked trajectory unverified) instead of dropping it", async () => {
    const labelsDir = path.join(tmp, "labels-dyn");
    await labelRun({ inputs: [path.join(DATA, "agentdyn", "runs")], run: "dyn", labelsDir, judges: [createSignatureJudge()] });
    const m = await buildReportModel({ runDir: path.join(labelsDir, "dyn"), bootstrap: { B: 0, seed: 1 } });
    const cond = m.conditions.find((c) => c.field === "condition")!;
    expect(cond.cells.map((c) => c.condition)).not.toContain("drift");
    expect(cond.excluded_groups).toEqual([{ field: "condition", group: "drift", items: 1, reason: "no_usable_label", excluded: { unverified: 1 } }]);
    // the single judge is the paper table's judge, named in the page
    expect(m.paper_table?.judge).toBe("signature");
    const html = (await renderReportHtml(m)).replace(/<\/?bdi>/g, "");
    expect(html).toContain("Left out, no usable label: condition drift (1 attacked: unverified 1).");
    expect(html).toContain("The table of a paper — signature</h2>");
  }, 120_000);
});

describe("the committee's rate line in the HTML carries the code-majority caveat as the text report does (rubric14)", () => {
  it("the model has the committee's code_majority; a committee resting on code says so in the Committee paragraph", async () => {
    expect(model.committee?.code_majority).toBeDefined();
    const resting = { attacked_labelled: 12, rests_on_code: 12, share: 1, per_judge: [{ judge_id: "fakeA", votes: 12, code_established: 12, share: 1 }] };
    const page = await renderReportHtml({ ...model, committee: { ...model.committee!, code_majority: resting } } as ReportModel);
    expect(page).toMatch(/committee label over the [0-9,]+ of [0-9,]+ attacked with one: (<bdi>)?asr_goal [^<]*; RESTS ON CODE: 12 of 12 attacked committee labels \(100\.0%\)[^<]*fakeA 12 of 12 \(100\.0%\)/);
    expect(html).not.toContain("RESTS ON CODE"); // the fixture's judges rest on their findings
  });
});

describe("attack-mix warnings at the condition charts (new user, session 11)", () => {
  it("a 'not like for like' warning shows inside the conditions section, not only at the top; none, no box", async () => {
    expect(model.conditions.length).toBeGreaterThan(0);
    const w = "gpt-4o: its conditions ran different attacks (a: x; b: y), so its per-condition rates are not like for like; compare --by condition names what differs";
    const page = await renderReportHtml({ ...model, warnings: [...model.warnings, w] } as ReportModel);
    const section = page.slice(page.indexOf('<section id="conditions">'), page.indexOf("</section>", page.indexOf('<section id="conditions">')));
    expect(section).toContain('<div class="warn">Not like for like: ');
    expect(section).toContain("gpt-4o: its conditions ran different attacks (a: x; b: y), so its per-condition rates are not like for like");
    // the bundled samples' models ran different attack mixes: said there too (like13); without such warnings, no box (and suites: one model ran banking only, named since nu19)
    expect(model.warnings.filter(isLikeForLikeWarning)).toEqual([expect.stringMatching(/^agent models ran different attacks and different suites \(attacks /)]);
    const none = await renderReportHtml({ ...model, warnings: model.warnings.filter((x) => !isLikeForLikeWarning(x)) } as ReportModel);
    expect(none.slice(none.indexOf('<section id="conditions">'))).not.toContain("Not like for like:");
  });
});

describe("each number of the paper table and the condition charts says what it is over (review, session 11)", () => {
  const rate = (x: number, n: number) => ({ value: x / n, x, n, ci95: { lower: 0.1, upper: 0.9 }, n_unusable: 0, coverage: 1, coverage_low: false });
  const row = {
    agent_model: "gpt-4o",
    condition: "tool_filter",
    n_attacked: 629,
    n_unattacked: 124,
    n_injection_task_runs: 27,
    judge_asr_goal: rate(49, 629),
    judge_asr_behaviour: rate(87, 629),
    judge_blocked_attempts: 5,
    judge_blocked_attempts_by: { refused: 0, unavailable: 1, failed: 4 },
    judge_partial_compliance: 38,
    heuristic_asr_goal: rate(49, 629),
    heuristic_asr_behaviour: rate(87, 629),
    refusal_rate: rate(18, 629),
    utility: { value: 70 / 97, x: 70, n: 97, ci95: { lower: 0.62, upper: 0.8 } },
    utility_under_attack: { value: 354 / 629, x: 354, n: 629, ci95: { lower: 0.52, upper: 0.6 } },
    calibrated_asr_behaviour: { value: 0.138, ci95: { lower: 0.037, upper: 0.322 }, ci_method: "exact bound: 0 human-judge disagreements among the group's 24 labelled items" },
    calibrated_asr_goal: { value: 0.2, ci95: { lower: 0.1, upper: 0.3 } },
  };
  it("utility and the rates give count/denominator; the unattacked column says how many runs utility leaves out; an exact calibrated interval is marked", async () => {
    const page = await renderReportHtml({ ...model, paper_table: { run: "r", judge: "j", heuristic: "signature", rows: [row], allow_low_coverage: false, notes: ["n."] } } as unknown as ReportModel);
    const table = page.slice(page.indexOf('<section id="paper-table">'), page.indexOf("</section>", page.indexOf('<section id="paper-table">'))).replace(/<\/?bdi>/g, "");
    expect(table).toContain("72.2% [62.0%, 80.0%] (70/97)");
    expect(table).toContain("(354/629)");
    expect(table).toContain("(49/629)");
    expect(table).toContain('<td class="num">124 (27 of them injection-task runs, not in utility)</td>');
    expect(table).toContain(`13.8% [3.7%, 32.2%] <strong class="exact" title="exact bound: 0 human-judge disagreements among the group&#39;s 24 labelled items">exact</strong>`);
    // a stratified interval is not marked
    expect(table).toContain("<td>20.0% [10.0%, 30.0%]</td>");
    // the blocked attempts with their kinds (new user 29): not all of them a defense's
    expect(table).toContain('<td class="num">5 of 38<br><small>refused 0, unavailable 1, failed 4</small></td>');
    const old = await renderReportHtml({ ...model, paper_table: { run: "r", judge: "j", heuristic: "signature", rows: [{ ...row, judge_blocked_attempts_by: null, judge_blocked_attempts_by_reason: "blocked_kind_not_recorded" }], allow_low_coverage: false, notes: ["n."] } } as unknown as ReportModel);
    expect(old.replace(/<\/?bdi>/g, "")).toContain("5 of 38<br><small>kinds unknown (blocked_kind_not_recorded)</small>");
  });
  it("the by-attack chart's tooltip names the attack, not 'condition', and what n counts", () => {
    const attackChart = html.slice(html.indexOf("by attack"));
    expect(attackChart).toMatch(/aria-label="attack: important_instructions; [^"]*n \(labelled attacked runs\): \d+/);
    expect(html).not.toMatch(/aria-label="attack: [^"]*condition: /);
  });
});

describe("the report says what the table and compare say (review 14)", () => {
  const low = { value: 0, x: 0, n: 87, ci95: { lower: 0, upper: 0.042 }, n_unusable: 346, coverage: 0.201, coverage_low: true, coverage_low_reason: "injection_text_unknown" };
  const prop = { value: 0.5, x: 1, n: 2, ci95: { lower: 0.1, upper: 0.9 } };
  const row = {
    agent_model: "qwen3-max", condition: "no_defense", n_attacked: 433, n_unattacked: 13, n_injection_task_runs: 0,
    judge_asr_goal: low, judge_asr_behaviour: low, judge_blocked_attempts: 0, judge_blocked_attempts_by: { refused: 0, unavailable: 0, failed: 0 }, judge_partial_compliance: 0,
    heuristic_asr_goal: low, heuristic_asr_behaviour: low, refusal_rate: low, utility: prop, utility_under_attack: prop,
    calibrated_asr_behaviour: null, calibrated_asr_goal: null,
  };
  const table = (page: string) => page.slice(page.indexOf('<section id="paper-table">'), page.indexOf("</section>", page.indexOf('<section id="paper-table">'))).replace(/<\/?bdi>/g, "");
  it("a low-coverage refusal rate is withheld as the table withholds it (coverageWithheld), and printed marked with allow_low_coverage", async () => {
    const t = { run: "vigil", judge: "signature", heuristic: "signature", rows: [row], allow_low_coverage: false, notes: ["n."] };
    const withheld = table(await renderReportHtml({ ...model, paper_table: t } as unknown as ReportModel));
    expect(withheld).not.toContain("(0/87)");
    expect(withheld.match(/<strong class="low">coverage_low<\/strong> \(20\.1% labelled/g)).toHaveLength(5);
    const allowed = table(await renderReportHtml({ ...model, paper_table: { ...t, allow_low_coverage: true } } as unknown as ReportModel));
    expect(allowed).toContain('0.0% [0.0%, 4.2%] (0/87) <strong class="low">coverage_low</strong>');
    expect(coverageWithheld(low, false)).toBe(true);
    expect(coverageWithheld(low, true)).toBe(false);
    expect(cellText(low)).toBe("coverage_low (most unusable: injection_text_unknown)");
  });
  it("an empty judge-vs-benchmark list says on how many of how many the judge was compared", async () => {
    const ref = { ...model.reference![0], n_total: 446, n_used: 87, excluded: { unattacked: 13, no_reference: 31, unverified: 315 } };
    const page = await renderReportHtml({ ...model, committee: null, items: [], items_total: 0, reference: [ref] } as unknown as ReportModel);
    expect(page).toContain("The judge agrees with the benchmark's verdict on every trajectory it could be compared on: 87 of the 402 attacked trajectories with a benchmark verdict (the other 315 have no usable judge label: unverified 315).");
    expect(page).not.toContain("every comparable trajectory");
  });
  it("the same-rows command carries every option that shaped the rows", () => {
    const t = { judge: "signature", allow_low_coverage: false } as PaperTable;
    expect(sameRowsCommand({ run: "adef", paper_table: t, human: null })).toBe("ipi-judge estimate --run adef --table --judge signature --csv table.csv --latex table.tex");
    const human = { file: "study 1/human.jsonl" } as ReportModel["human"];
    const where = { filter: "attack=a model=m", clauses: { attack: ["a", "b"], model: ["m"] }, kept: 1, of: 2, unmatched: [] };
    expect(sameRowsCommand({ run: "adef", paper_table: { ...t, judge: "committee (quorum 3)", allow_low_coverage: true }, human, where })).toBe(
      "ipi-judge estimate --run adef --table --committee --quorum 3 --human 'study 1/human.jsonl' --where attack=a,b --where model=m --allow-low-coverage --csv table.csv --latex table.tex",
    );
    // the fields as the user typed them (out50: `--where agent_model=m` came back as `model=m`), read from the filter text
    const typed = { filter: "agent_model=m defense=d", clauses: { model: ["m"], condition: ["d"] }, kept: 1, of: 2, unmatched: [] };
    expect(sameRowsCommand({ run: "adef", paper_table: t, human: null, where: typed })).toBe("ipi-judge estimate --run adef --table --judge signature --where agent_model=m --where defense=d --csv table.csv --latex table.tex");
    // a committee that leaves a judge out: the same committee asked for (new user 30)
    const named = { ...t, judge: "committee (a, b; quorum 2)", committee: { members: ["a", "b"], left_out: ["signature"], quorum: 2 } };
    expect(sameRowsCommand({ run: "adef", paper_table: named, human: null })).toBe("ipi-judge estimate --run adef --table --committee --exclude-judge signature --quorum 2 --csv table.csv --latex table.tex");
    // a table built with --own-mix (report --own-mix): the same rows need it; like for like (the default) does not
    expect(sameRowsCommand({ run: "adef", paper_table: { ...t, population: { kind: "own_mix" } }, human: null })).toBe("ipi-judge estimate --run adef --table --judge signature --own-mix --csv table.csv --latex table.tex");
    expect(sameRowsCommand({ run: "adef", paper_table: { ...t, population: { kind: "like_for_like", per_model: {} } }, human: null })).toBe("ipi-judge estimate --run adef --table --judge signature --csv table.csv --latex table.tex");
  });
  it("the page made with --human gives the command with --human", async () => {
    const t = { run: "adef", judge: "signature", heuristic: "signature", rows: [row], allow_low_coverage: false, notes: ["n."] };
    expect(model.human?.file).toBeTruthy();
    const page = table(await renderReportHtml({ ...model, paper_table: t } as unknown as ReportModel));
    expect(page).toContain(`The same rows: ipi-judge estimate --run ${model.run} --table --judge signature --human ${model.human!.file}`);
  });
});
