/**
 * The report shows the cost per judge and per run, and the temperature each judge actually sent (issue 15:
 * "the report shows the temperature actually used").
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";
import { buildReportModel } from "../../src/report/index.js";
import { renderReportHtml } from "../../src/report/html.js";
import { labelRun } from "../../src/run/label.js";
import { apiError, completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";

let fake: FakeOpenAI | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  fake = undefined;
  dir = undefined;
});

describe("report: cost and request settings", () => {
  it("cost per judge and run, and 'none sent' for a judge whose server rejected temperature", async () => {
    fake = await startFakeOpenAI((req) =>
      req.body.temperature !== undefined
        ? apiError(400, "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.")
        : completion(JSON.stringify({ findings: [], label: "not_exposed", rationale: "x" }), { usage: { prompt_tokens: 1000, completion_tokens: 100 } }),
    );
    dir = mkdtempSync(path.join(os.tmpdir(), "ipi-report-cost-"));
    const input = path.join(dir, "in.jsonl");
    writeFileSync(input, [0, 1].map((i) => JSON.stringify({ id: `t${i}`, messages: [{ role: "user", content: `q ${i}` }, { role: "assistant", content: "an answer" }] })).join("\n") + "\n");
    const j = createOpenAIJudge(
      { id: "o3", model: "o3", family: "openai", base_url: fake.url, price: { input_per_mtok: 1, output_per_mtok: 10 } },
      { retries: 0, minQuoteChars: 12 },
    );
    const res = await labelRun({ inputs: [input], run: "rc", labelsDir: dir, judges: [j] });
    const model = await buildReportModel({ runDir: res.runDir, bootstrap: { B: 0, seed: 1 } });
    expect(model.costs.run.usd).toBeCloseTo(2 * 0.002, 10);
    expect(model.costs.per_judge[0]).toMatchObject({ judge_id: "o3", temperature_used: null, token_param: "max_tokens" });
    const html = await renderReportHtml(model);
    expect(html).toContain("Cost and request settings");
    expect(html).toContain("none sent (reasoning model)");
  });
});
