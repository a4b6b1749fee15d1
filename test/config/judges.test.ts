import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  configuredFamily,
  JUDGE_DEFAULTS,
  JUDGES_SCHEMA_PATH,
  JudgesConfigError,
  loadJudgesConfig,
  NO_KEY,
  parseJudgesConfig,
  resolveApiKey,
} from "../../src/config/judges.js";
import { ROOT } from "../helpers/paths.js";
import { createOpenAIJudge } from "../../src/judges/llm-judge.js";

const EXAMPLE = path.join(ROOT, "prompts", "judges.example.json");
const LOCAL = path.join(ROOT, "prompts", "judges.local.example.json");
const KEY = "sk-or-v1-CONFIGTESTKEY-abcdef0123";

function tmpFile(obj: unknown): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-judges-"));
  const f = path.join(dir, "judges.json");
  writeFileSync(f, typeof obj === "string" ? obj : JSON.stringify(obj));
  return f;
}
const one = (j: Record<string, unknown> = {}) => ({ judges: [{ id: "a", model: "m", family: "openai", ...j }] });
function errorOf(fn: () => unknown): JudgesConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(JudgesConfigError);
    return e as JudgesConfigError;
  }
  throw new Error("did not throw");
}

describe("example configs", () => {
  it("judges.example.json: three families through OpenRouter", () => {
    const cfg = loadJudgesConfig(EXAMPLE, { env: { OPENROUTER_API_KEY: KEY } });
    expect(cfg.judges.map((j) => j.family).sort()).toEqual(["anthropic", "google", "openai"]);
    for (const j of cfg.judges) {
      expect(j.base_url).toBe("https://openrouter.ai/api/v1");
      expect(j.api_key_env).toBe("OPENROUTER_API_KEY");
    }
    expect(cfg.retries).toBe(2);
    expect(cfg.min_quote_chars).toBe(12);
  });
  it("judges.example.json without the key: a clear error naming the variable", () => {
    const e = errorOf(() => loadJudgesConfig(EXAMPLE, { env: {} }));
    expect(e.message).toContain("OPENROUTER_API_KEY");
    expect(loadJudgesConfig(EXAMPLE, { env: {}, checkKeys: false }).judges).toHaveLength(3);
  });
  it("a leading byte order mark (Windows editors) is not content: the file reads", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ipi-bom-"));
    const f = path.join(dir, "judges.json");
    writeFileSync(f, "\uFEFF" + readFileSync(LOCAL, "utf8"));
    expect(loadJudgesConfig(f, { env: {} }).judges.length).toBeGreaterThan(0);
    writeFileSync(f, "\uFEFF{nope");
    expect(() => loadJudgesConfig(f, { env: {} })).toThrow(/judges.json: not valid JSON/);
    rmSync(dir, { recursive: true, force: true });
  });

  it("judges.local.example.json: vLLM and Ollama, no key needed", () => {
    const cfg = loadJudgesConfig(LOCAL, { env: {} });
    expect(cfg.judges.map((j) => j.base_url)).toEqual(["http://127.0.0.1:8000/v1", "http://127.0.0.1:11434/v1"]);
    for (const j of cfg.judges) expect(resolveApiKey(j, {})).toBe(NO_KEY);
  });
});

describe("validation names the bad field", () => {
  const cases: [string, unknown, RegExp][] = [
    ["temperature out of range", one({ temperature: 3 }), /judges\[0\] \(id "a"\)\.temperature must be <= 2/],
    ["unknown field", one({ temprature: 0 }), /judges\[0\] \(id "a"\): unknown field "temprature"/],
    ["bad output_mode", one({ output_mode: "yaml" }), /output_mode must be equal to one of the allowed values: "json_schema", "json_object", "text"/],
    ["missing model", { judges: [{ id: "a", family: "x" }] }, /judges\[0\] \(id "a"\): missing required field "model"/],
    ["missing judges", {}, /missing required field "judges"/],
    ["empty judges", { judges: [] }, /judges must NOT have fewer than 1 items/],
    ["bad base_url", one({ base_url: "openrouter.ai" }), /base_url must match pattern/],
    ["bad env name", one({ api_key_env: "sk-live-123" }), /api_key_env must match pattern/],
    ["concurrency 0", one({ concurrency: 0 }), /concurrency must be >= 1/],
    ["negative retries", { ...one(), retries: -1 }, /retries must be >= 0/],
    ["top-level typo", { ...one(), retry: 2 }, /\(top level\): unknown field "retry"/],
    ["extra_body not object", one({ extra_body: [1] }), /extra_body must be object/],
    ["families value", { ...one(), families: { gpt: 1 } }, /families\.gpt must be string/],
  ];
  for (const [name, raw, re] of cases) {
    it(name, () => {
      const f = tmpFile(raw);
      const e = errorOf(() => loadJudgesConfig(f, { env: {} }));
      expect(e.message).toMatch(re);
      expect(e.message).toContain(f);
    });
  }
  it("durations and rates past the longest Node.js timer are refused, naming the field and the limit (red team 31 F5)", () => {
    // timeout_s 1e12 aborted every request after 1 ms; rpm 1e-5 spaced nothing (the timer fired at once)
    for (const [j, re] of [
      [{ timeout_s: 1e12 }, /judges\[0\] \(id "a"\)\.timeout_s must be <= 2147483\.647: .*2\^31-1 ms .*~24\.8 days/],
      [{ timeout_s: 2147483.648 }, /timeout_s must be <= 2147483\.647/],
      [{ rpm: 1e-5 }, /judges\[0\] \(id "a"\)\.rpm must be >= 0\.0000279397: the spacing of requests, 60000\/rpm ms, must be at most 2\^31-1 ms \(~24\.8 days\)/],
      [{ tpm: 1e-6 }, /tpm must be >= 0\.0000279397: .*~24\.8 days/],
      [{ rpm: 0 }, /rpm must be >= /],
    ] as const) expect(errorOf(() => parseJudgesConfig(one(j))).message).toMatch(re);
    // the largest values the timers can wait are taken
    expect(parseJudgesConfig(one({ timeout_s: 2147483.647, rpm: 0.0000279397, tpm: 0.0000279397 })).judges[0].timeout_s).toBe(2147483.647);
    expect(60_000 / 0.0000279397).toBeLessThanOrEqual(2 ** 31 - 1);
  });
  it("extra_body keys that look like credentials are refused like headers, at any depth, never echoing the value (red team 31 L3d)", () => {
    for (const [body, field] of [
      [{ api_key: "sk-live-SECRET1" }, "extra_body.api_key"],
      [{ token: "t0k3n-SECRET" }, "extra_body.token"],
      [{ provider: { Authorization: "Bearer SECRET" } }, "extra_body.provider.Authorization"],
      [{ client_secret: "SECRET" }, "extra_body.client_secret"],
      [{ auth: { password: "SECRET" } }, "extra_body.auth"],
      [{ list: [{ access_token: "SECRET" }] }, "extra_body.list[0].access_token"],
      [{ "x-api-key": "SECRET" }, "extra_body.x-api-key"],
    ] as const) {
      const e = errorOf(() => parseJudgesConfig(one({ extra_body: body })));
      expect(e.message).toContain(`judges[0] ("a").${field} looks like a credential`);
      expect(e.message).toMatch(/headers_env/);
      expect(e.message).not.toContain("SECRET");
    }
    // request parameters with such words in them are no credentials
    const ok = { options: { max_tokens: 5, max_completion_tokens: 9 }, prompt_cache_key: "run-1", reasoning: { effort: "low" }, provider: { order: ["a"] }, keywords: ["x"] };
    expect(parseJudgesConfig(one({ extra_body: ok })).judges[0].extra_body).toEqual(ok);
  });
  it("extra_body fields the judge sets itself are refused, naming the field to use (red team 40: merged last, they replaced the judge's own in every request)", () => {
    for (const [body, use] of [
      [{ model: "gpt-4o" }, /judge's model field/],
      [{ messages: [] }, /rubric's/],
      [{ temperature: 1 }, /temperature field/],
      [{ max_tokens: 100000 }, /max_tokens field.*cost cap/],
      [{ max_completion_tokens: 100000 }, /max_tokens field/],
      [{ response_format: { type: "text" } }, /output_mode/],
      [{ stream: true }, /read whole/],
    ] as const) {
      const k = Object.keys(body)[0];
      const e = errorOf(() => parseJudgesConfig(one({ extra_body: { top_p: 0.5, ...body } })));
      expect(e.message).toContain(`judges[0] ("a").extra_body.${k}: a field the judge sets itself`);
      expect(e.message).toMatch(use);
      // a judge made from code is refused alike
      expect(() => createOpenAIJudge({ id: "a", model: "m", family: "openai", base_url: "http://127.0.0.1:9/v1", extra_body: body }, { retries: 2, minQuoteChars: 12 })).toThrow(
        new RegExp(`judge "a": extra_body\\.${k}: a field the judge sets itself`),
      );
    }
    // n: refused from a file and from code alike (brk40: from code it was sent, only choice 0 read, past the cost cap)
    expect(() => createOpenAIJudge({ id: "a", model: "m", family: "openai", base_url: "http://127.0.0.1:9/v1", extra_body: { n: 4 } }, { retries: 2, minQuoteChars: 12 })).toThrow(/extra_body\.n: several choices.*--repeats/);
    expect(errorOf(() => parseJudgesConfig(one({ extra_body: { n: 4 } }))).message).toContain(`judges[0] ("a").extra_body.n: several choices`);
    expect(parseJudgesConfig(one({ extra_body: { top_p: 0.5, seed: 3, reasoning_effort: "low" } })).judges[0].extra_body).toEqual({ top_p: 0.5, seed: 3, reasoning_effort: "low" });
  });
  it("duplicate ids", () => {
    const e = errorOf(() => parseJudgesConfig({ judges: [{ id: "a", model: "m", family: "f" }, { id: "a", model: "n", family: "f" }] }));
    expect(e.message).toMatch(/judges\[1\]\.id: duplicate judge id "a"/);
    // differing only by letter case: one batches/<id>/ folder on a case-insensitive disk (hostile52 F5)
    const c = errorOf(() => parseJudgesConfig({ judges: [{ id: "mock", model: "m", family: "f" }, { id: "Mock", model: "n", family: "g" }] }));
    expect(c.message).toMatch(/judges\[1\]\.id: "Mock" differs from judge "mock" only by letter case/);
  });
  it("ids the tool keeps for its own raters are refused (red team 36 M3)", () => {
    for (const id of ["committee", "signature", "Committee"]) {
      const e = errorOf(() => parseJudgesConfig({ judges: [{ id, model: "m", family: "f" }] }));
      expect(e.message).toMatch(new RegExp(`judges\\[0\\]\\.id: "${id}" is a name ipi-judge keeps for its own raters`));
    }
    expect(parseJudgesConfig({ judges: [{ id: "committee-gpt", model: "m", family: "f" }] }).judges[0].id).toBe("committee-gpt");
  });
  it("bad family regex", () => {
    expect(errorOf(() => parseJudgesConfig({ ...one(), families: { "gpt(": "openai" } })).message).toMatch(/not a valid regular expression/);
  });
  it("a family pattern that matches every model name (it matches an empty name) is refused (red team 40)", () => {
    for (const pat of ["", ".*", "gpt|", "(x)?"]) expect(errorOf(() => parseJudgesConfig({ ...one(), families: { [pat]: "meta" } })).message).toMatch(/matches an empty name, so every model/);
    expect(parseJudgesConfig({ ...one(), families: { "^llama": "meta", "gpt-4.1": "openai" } }).families).toEqual({ "^llama": "meta", "gpt-4.1": "openai" });
  });
  it("a key given twice with different values is refused, naming it and both values; the same value twice reads (break43)", () => {
    const twice = `{"judges": [{"id": "a", "model": "gpt-4o", "family": "openai", "model": "gpt-4o-mini"}]}`;
    expect(errorOf(() => loadJudgesConfig(tmpFile(twice), { env: {} })).message).toMatch(
      /judges\.json: judges\[0\]: key "model" given twice with different values \("gpt-4o", then "gpt-4o-mini"\); JSON keeps one of them silently/,
    );
    const same = `{"judges": [{"id": "a", "model": "gpt-4o", "family": "openai", "model": "gpt-4o"}]}`;
    expect(loadJudgesConfig(tmpFile(same), { env: {} }).judges[0].model).toBe("gpt-4o");
    expect(errorOf(() => loadJudgesConfig(tmpFile("\uFEFF" + twice), { env: {} })).message).toMatch(/key "model" given twice/);
  });
  it("not JSON / missing file", () => {
    expect(errorOf(() => loadJudgesConfig(tmpFile("{judges: ["))).message).toMatch(/not valid JSON/);
    expect(errorOf(() => loadJudgesConfig("/nonexistent/judges.json")).message).toMatch(/cannot read/);
  });
});

describe("keys", () => {
  it("reads the key from the environment; an empty variable is missing", () => {
    expect(resolveApiKey({ id: "a", api_key_env: "K" }, { K: ` ${KEY}\n` })).toBe(KEY);
    const e = errorOf(() => resolveApiKey({ id: "a", api_key_env: "K" }, { K: "  " }));
    expect(e.message).toMatch(/judge "a": environment variable K is not set/);
  });
  it("the key never appears in config errors", () => {
    const f = tmpFile({ judges: [{ id: "a", model: "m", family: "f", api_key_env: "K", temperature: 9 }] });
    const e = errorOf(() => loadJudgesConfig(f, { env: { K: KEY } }));
    expect(e.message).not.toContain(KEY);
    const cfg = loadJudgesConfig(tmpFile(one({ api_key_env: "K" })), { env: { K: KEY } });
    expect(JSON.stringify(cfg)).not.toContain(KEY);
  });
});

describe("defaults", () => {
  it("file-level defaults are applied", () => {
    const cfg = parseJudgesConfig(one());
    expect(cfg).toMatchObject({ retries: 2, min_quote_chars: 12, families: {} });
  });
  it("JUDGE_DEFAULTS match the schema's defaults", () => {
    const schema = JSON.parse(readFileSync(JUDGES_SCHEMA_PATH, "utf8"));
    const p = schema.definitions.judge.properties;
    expect(p.temperature.default).toBe(JUDGE_DEFAULTS.temperature);
    expect(p.output_mode.default).toBe(JUDGE_DEFAULTS.output_mode);
    expect(p.concurrency.default).toBe(JUDGE_DEFAULTS.concurrency);
    expect(p.timeout_s.default).toBe(JUDGE_DEFAULTS.timeout_s);
    expect(schema.properties.retries.default).toBe(JUDGE_DEFAULTS.retries);
    expect(schema.properties.min_quote_chars.default).toBe(JUDGE_DEFAULTS.min_quote_chars);
  });
  it("configuredFamily: first matching pattern, case-insensitive", () => {
    const fam = { "my-tune": "meta", "gpt|o3": "openai" };
    expect(configuredFamily("org/My-Tune-7B", fam)).toBe("meta");
    expect(configuredFamily("gpt-4o", fam)).toBe("openai");
    expect(configuredFamily("claude", fam)).toBeUndefined();
  });
});
