/**
 * Rate limits waited out are said (session 51: a run that spent minutes in 429 waits said nothing): the built CLI
 * against a scripted 127.0.0.1 server answering every other request HTTP 429 with a short `retry-after-ms`, through the
 * real `openai` client. label's summary (the health line), `--json` (`judges[].health.rate_limited`), `summary.json`
 * and the report's page count them per judge: the 429s, the time waited, the largest Retry-After honoured; a judge that
 * met none says nothing of them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { completion, startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { SAMPLES } from "../helpers/paths.js";
import { unwrapText } from "../../src/format/wrap-text.js";

let tmp: string;
let fake: FakeOpenAI;
/** The 429s the server sent, and the retry-after-ms of each (ms). */
const sent: number[] = [];
const REPLY = completion(JSON.stringify({ findings: [], label: "unaffected", rationale: "r" }));

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-rate-limits-"));
  // every other request a 429 asking for 100 or 200 ms
  fake = await startFakeOpenAI((_req, n) => {
    if (n % 2 === 1) return REPLY;
    const ms = n % 4 === 0 ? 100 : 200;
    sent.push(ms);
    return { status: 429, headers: { "retry-after-ms": String(ms) }, body: { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } } };
  });
  const judges = path.join(tmp, "judges.json");
  fs.writeFileSync(judges, JSON.stringify({ judges: [{ id: "limited", model: "m", family: "meta", base_url: fake.url, concurrency: 1, output_mode: "json_object" }] }));
  fs.writeFileSync(path.join(tmp, "judges-path"), judges);
}, 60_000);
afterAll(async () => {
  await fake.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("label: the 429s waited out, per judge", () => {
  it("counted in the summary, --json, summary.json and the report's page", async () => {
    const judges = fs.readFileSync(path.join(tmp, "judges-path"), "utf8");
    const labels = path.join(tmp, "labels");
    const r = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels, "--limit", "20", "--json", "--progress", "off"]);
    expect([0, 3]).toContain(r.code);
    const s = JSON.parse(r.stdout);
    const h = s.judges.find((j: { judge_id: string }) => j.judge_id === "limited").health;
    const verdicts = fs.readFileSync(path.join(labels, "r", "verdicts.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    // every 429 the server sent, counted once; the verdicts whose conversation met one (concurrency 1, every other request)
    expect(sent.length).toBeGreaterThanOrEqual(verdicts.length);
    expect(h.rate_limited.responses).toBe(sent.length);
    expect(h.rate_limited.verdicts).toBe(verdicts.filter((v: { rate_limited?: unknown }) => v.rate_limited).length);
    expect(h.rate_limited.verdicts).toBeGreaterThan(verdicts.length / 2);
    expect(h.rate_limited.max_retry_after_ms).toBe(200);
    const asked = sent.reduce((a, b) => a + b, 0);
    expect(h.rate_limited.waited_ms).toBeGreaterThanOrEqual(asked); // + jitter (25% and 50-250 ms)
    expect(h.rate_limited.waited_ms).toBeLessThanOrEqual(asked * 1.25 + 250 * sent.length);
    // the sum of the verdicts' own records, as stored
    expect(verdicts.reduce((n: number, v: { rate_limited?: { responses: number } }) => n + (v.rate_limited?.responses ?? 0), 0)).toBe(sent.length);
    const file = JSON.parse(fs.readFileSync(path.join(labels, "r", "summary.json"), "utf8"));
    expect(file.judges[0].health.rate_limited).toEqual(h.rate_limited);

    const text = await runCli(["label", SAMPLES, "--judges", judges, "--run", "r", "--labels-dir", labels, "--limit", "20", "--progress", "off"]);
    const said = unwrapText(text.stdout);
    const n = sent.length;
    expect(said).toMatch(new RegExp(`rate limited ${n} times \\(HTTP 429 or a rate limit in a 200\\) over ${h.rate_limited.verdicts} verdicts: [\\d.]+ s waited in all, largest Retry-After honoured 0\\.2 s`));
    expect(sent.length).toBe(n); // nothing sent again: every verdict stored

    const out = path.join(tmp, "r.html");
    const rep = await runCli(["report", "--run", "r", "--labels-dir", labels, "--out", out]);
    expect([0, 3]).toContain(rep.code);
    expect(fs.readFileSync(out, "utf8").replace(/<\/?bdi>/g, "")).toMatch(/Judge limited: rate limited \d+ times \(HTTP 429 or a rate limit in a 200\) over \d+ verdicts: [\d.]+ s waited in all, largest Retry-After honoured 0\.2 s/);
  }, 120_000);
});
