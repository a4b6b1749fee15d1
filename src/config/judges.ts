// src/config/: the judges configuration file (schemas/judges.schema.json): loading, checks, defaults, credentials
// (clientSettings) and model families; read by judges/, providers/, committee/ and the CLI.
/**
 * The judges configuration file: which OpenAI-compatible judges to call and how.
 * Shape and defaults: `schemas/judges.schema.json` (published with the package); validated with ajv.
 * API keys are never in the file: each judge names the environment variable that holds its key.
 */
import { readFileSync } from "node:fs";
import { configJson } from "./config-json.js";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { judges as judgesValidator } from "./judges-validator.generated.js";

/** How the judge is asked for JSON: strict JSON Schema, JSON mode, or plain text. */
export type OutputMode = "json_schema" | "json_object" | "text";
export const OUTPUT_MODES: readonly OutputMode[] = ["json_schema", "json_object", "text"];

/** One judge of the configuration file (see `schemas/judges.schema.json` for each field). */
export interface JudgeConfig {
  id: string;
  model: string;
  /** Base URL of the OpenAI-compatible API; undefined = the OpenAI API. */
  base_url?: string;
  /** Environment variable that holds the API key; undefined = a keyless local server. */
  api_key_env?: string;
  family: string;
  /** Sampling temperature; default 0. */
  temperature?: number;
  max_tokens?: number;
  /** Default `json_schema`. */
  output_mode?: OutputMode;
  /** Trajectories this judge works on at once; default 4. */
  concurrency?: number;
  /** Per-request timeout in seconds; default 120. */
  timeout_s?: number;
  extra_body?: Record<string, unknown>;
  /** Requests per minute; unset = unlimited. */
  rpm?: number;
  /** Estimated tokens per minute; unset = unlimited. */
  tpm?: number;
  /**
   * Send this judge's requests through the OpenAI Batch API under `label --batch`. Unset: true for the OpenAI API
   * itself (no `base_url`, or api.openai.com), false otherwise. See `../run/batch.ts`.
   */
  batch?: boolean;
  /**
   * Extra HTTP headers whose values come from environment variables: header name -> variable name (e.g.
   * `{"api-key": "AZURE_OPENAI_KEY"}`, `{"Proxy-Authorization": "PROXY_AUTH"}`). Values are secrets: redacted
   * from every text the judge writes.
   */
  headers_env?: Record<string, string>;
  /** Extra HTTP headers with literal, non-secret values (e.g. OpenRouter's `HTTP-Referer`, `X-Title`). */
  headers?: Record<string, string>;
  /**
   * Query-string parameters whose values come from environment variables: parameter -> variable name (e.g.
   * `{"key": "GEMINI_API_KEY"}`). Sent on every request; values redacted like keys. A secret-looking parameter
   * written into `base_url` itself is refused when the config is read; non-secret ones (`api-version`) are sent.
   */
  query_env?: Record<string, string>;
  /**
   * The structured-output schema dialect of the server under `output_mode: "json_schema"`: `openai` (strict),
   * `gemini`, `vllm`, `ollama` (see `../providers/schema-dialects.ts`). Unset: `gemini` for Google's host, `ollama` for port
   * 11434, else `openai`.
   */
  schema_dialect?: "openai" | "gemini" | "vllm" | "ollama";
  /** Prices in USD per million tokens, for the cost of each verdict, judge and run (see `src/providers/cost.ts`). */
  price?: JudgePrice;
  /**
   * A reasoning model (OpenAI o-series, gpt-5 family, ...): sent without `temperature` and with
   * `max_completion_tokens` from the first request. Unset: learned once from the server's first 400 that
   * rejects either parameter.
   */
  reasoning?: boolean;
  /**
   * The model's context window in tokens. The rendered trajectory is elided (with the explicit marker) to fit it
   * with room for the reply; a trajectory that cannot fit is `unjudgeable` (`too_long`).
   */
  context_tokens?: number;
}

/**
 * A judge's prices, USD per million tokens. `cached_input_per_mtok` defaults to `input_per_mtok`. The `batch_*`
 * prices (given together: the schema requires both of input and output) are those of requests sent through the
 * Batch API (`label --batch`, `../providers/cost.ts` `batchPrice`); `batch_cached_input_per_mtok` defaults to
 * `batch_input_per_mtok`.
 */
export interface JudgePrice {
  input_per_mtok: number;
  cached_input_per_mtok?: number;
  output_per_mtok: number;
  batch_input_per_mtok?: number;
  batch_cached_input_per_mtok?: number;
  batch_output_per_mtok?: number;
}

/**
 * Fields of a judge's configuration that cannot change a verdict (pricing, pacing, time limits, credentials,
 * batch mode). `base_url` is not one of them: another server may serve another model under the same name. The resume key of a verdict hashes the judge configuration without these
 * (`src/store/`): changing them never judges anything again. Every other field (model, temperature, output mode,
 * max_tokens, extra_body, reasoning, context_tokens, ...) is part of the key.
 */
export const NON_VERDICT_FIELDS: readonly (keyof JudgeConfig)[] = [
  "price",
  "concurrency",
  "rpm",
  "tpm",
  "timeout_s",
  "batch",
  "api_key_env",
  "headers_env",
  "headers",
  "query_env",
];

/** The whole configuration file, defaults applied. */
export interface JudgesConfig {
  judges: JudgeConfig[];
  /** Feedback turns per verdict; default 2. */
  retries: number;
  /** Minimum normalized quote length; default 12. */
  min_quote_chars: number;
  /** Model-name pattern -> family; default `{}`. */
  families: Record<string, string>;
}

/** Defaults of the optional fields (mirrors the `default`s of the JSON Schema; a test keeps them in sync). */
export const JUDGE_DEFAULTS = {
  temperature: 0,
  output_mode: "json_schema" as OutputMode,
  concurrency: 4,
  timeout_s: 120,
  retries: 2,
  min_quote_chars: 12,
};

/**
 * A judge config with the per-judge defaults of {@link JUDGE_DEFAULTS} applied (temperature, output mode,
 * concurrency, timeout). Used by the judge and by the sending side (`../providers/sender.ts`), so both read one timeout.
 */
export function withJudgeDefaults(
  cfg: JudgeConfig,
): JudgeConfig & { temperature: number; output_mode: OutputMode; concurrency: number; timeout_s: number } {
  return {
    ...cfg,
    temperature: cfg.temperature ?? JUDGE_DEFAULTS.temperature,
    output_mode: (cfg.output_mode ?? JUDGE_DEFAULTS.output_mode) as OutputMode,
    concurrency: cfg.concurrency ?? JUDGE_DEFAULTS.concurrency,
    timeout_s: cfg.timeout_s ?? JUDGE_DEFAULTS.timeout_s,
  };
}

/** Every default a judge runs with, resolved once ({@link judgeSettings}). */
export interface JudgeSettings {
  /** The judge's config with the per-judge defaults applied ({@link withJudgeDefaults}). */
  config: ReturnType<typeof withJudgeDefaults>;
  /** Feedback turns after a bad reply or unverified evidence (run-level `retries`, default 2). */
  retries: number;
  /** Minimum normalized quote length (run-level, default 12). */
  min_quote_chars: number;
  /** Character budget of the rendered trajectory; null = none. */
  budget_chars: number | null;
  /** The request timeout in milliseconds (`timeout_s` x 1000). */
  timeout_ms: number;
}

/**
 * The one place a judge's defaults are applied (issue 27): the per-judge ones of {@link JUDGE_DEFAULTS}
 * (temperature, output mode, concurrency, timeout) and the run-level ones (retries, minimum quote length, budget).
 * The LLM judge (`../judges/llm-judge.ts`), its sender (`../providers/sender.ts`) and the configuration hashed into
 * the resume key (`../judges/verdict-config.ts`) all read it.
 * @param cfg the judge's config as in the file; @param common the run-level settings given (CLI, config file).
 */
export function judgeSettings(cfg: JudgeConfig, common: { retries?: number; minQuoteChars?: number; budgetChars?: number } = {}): JudgeSettings {
  const config = withJudgeDefaults(cfg);
  return {
    config,
    retries: common.retries ?? JUDGE_DEFAULTS.retries,
    min_quote_chars: common.minQuoteChars ?? JUDGE_DEFAULTS.min_quote_chars,
    budget_chars: common.budgetChars ?? null,
    timeout_ms: config.timeout_s * 1000,
  };
}

/** The key sent to servers that need none (Ollama, vLLM without `--api-key`) when `api_key_env` is not given. */
export const NO_KEY = "not-needed";

/** A configuration file that cannot be used. The message names the file and the bad field; it never holds a key. */
export class JudgesConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JudgesConfigError";
  }
}

/** Absolute path of `schemas/judges.schema.json` (works from `src/config` and from `dist/config`). */
export const JUDGES_SCHEMA_PATH = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../schemas/judges.schema.json",
);

/**
 * The configuration's validator, compiled ahead of time from the schema by ajv's standalone mode
 * (`scripts/gen-validators.mjs`; compiling it at start cost ~50 ms before the first request). test/schemas.test.ts
 * checks the generated file is what the schema gives.
 */
function validate(raw: unknown): ErrorObject[] {
  const v = judgesValidator as ValidateFunction;
  return v(raw) ? [] : (v.errors ?? []);
}

/** `/judges/1/temperature` -> `judges[1] ("id").temperature`: the bad field, named the way a user finds it. */
function fieldName(instancePath: string, raw: unknown): string {
  const segs = instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  let out = "";
  let node: unknown = raw;
  for (const s of segs) {
    if (Array.isArray(node) && /^\d+$/.test(s)) {
      node = node[Number(s)];
      const id = node && typeof node === "object" ? (node as { id?: unknown }).id : undefined;
      out += `[${s}]` + (typeof id === "string" ? ` (id "${id}")` : "");
    } else {
      node = node && typeof node === "object" ? (node as Record<string, unknown>)[s] : undefined;
      out += (out ? "." : "") + s;
    }
  }
  return out || "(top level)";
}

function describe(e: ErrorObject, raw: unknown): string {
  const at = fieldName(e.instancePath, raw);
  const p = e.params as Record<string, unknown>;
  if (e.keyword === "additionalProperties") return `${at}: unknown field "${String(p.additionalProperty)}"`;
  if (e.keyword === "required") return `${at}: missing required field "${String(p.missingProperty)}"`;
  if (e.keyword === "enum") return `${at} ${e.message}: ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
  const timer = e.keyword === "maximum" || e.keyword === "minimum" ? TIMER_LIMITS[e.instancePath.split("/").pop() ?? ""] : undefined;
  if (timer !== undefined) return `${at} ${e.message}: ${timer}`;
  return `${at} ${e.message ?? "is invalid"}`;
}

/** The longest delay a Node.js timer can wait: 2^31-1 ms (~24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Why the timing fields have their bounds in the schema (red team 31 F5: `timeout_s: 1e12` aborted every request after
 * 1 ms, `rpm: 1e-5` spaced nothing): said with the schema's own message.
 */
const TIMER_LIMITS: Record<string, string> = {
  timeout_s: "the timeout in ms must be at most 2^31-1 ms (2147483.647 s, ~24.8 days), the longest timer Node.js can set (a longer one fires after 1 ms); for no practical timeout give e.g. 86400",
  rpm: "the spacing of requests, 60000/rpm ms, must be at most 2^31-1 ms (~24.8 days), the longest timer Node.js can set (a longer one fires at once)",
  tpm: "the spacing of one token, 60000/tpm ms, must be at most 2^31-1 ms (~24.8 days), the longest timer Node.js can set",
};

/** Judge ids an LLM judge may not take: the committee's rater name and the offline judge's id. */
export const RESERVED_JUDGE_IDS: ReadonlySet<string> = new Set(["committee", "signature"]);

/**
 * Validate a parsed configuration object against `schemas/judges.schema.json` and apply the file-level
 * defaults (`retries` 2, `min_quote_chars` 12, `families` {}). Per-judge defaults stay unset here and are
 * applied by the judge (see `JUDGE_DEFAULTS`).
 * @param raw the parsed JSON.
 * @param source a name for messages (the file path).
 * @throws JudgesConfigError listing every bad field (`judges[0] ("gpt").temperature must be <= 2`), a
 *   duplicate judge id (or two differing only by letter case), or a reserved one ({@link RESERVED_JUDGE_IDS}).
 */
export function parseJudgesConfig(raw: unknown, source = "judges config"): JudgesConfig {
  const errors = validate(raw);
  if (errors.length) {
    // ajv reports the same field once per failing keyword; keep each message once.
    const msgs = [...new Set(errors.map((e) => describe(e, raw)))];
    throw new JudgesConfigError(`${source}: invalid judges configuration:\n  - ${msgs.join("\n  - ")}`);
  }
  const obj = raw as { judges: JudgeConfig[]; retries?: number; min_quote_chars?: number; families?: Record<string, string> };
  const seen = new Map<string, string>(); // id folded to lower case -> the id as given
  for (const [i, j] of obj.judges.entries()) {
    const folded = j.id.normalize("NFC").toLowerCase();
    const other = seen.get(folded);
    if (other === j.id) throw new JudgesConfigError(`${source}: judges[${i}].id: duplicate judge id "${j.id}"`);
    // a judge's files live under batches/<id>/: on a case-insensitive disk (macOS, Windows) two such ids are one folder (hostile52 F5)
    if (other !== undefined)
      throw new JudgesConfigError(`${source}: judges[${i}].id: "${j.id}" differs from judge "${other}" only by letter case: their batch folders (batches/<id>/) would be one on a case-insensitive disk; give it another id`);
    // names the tool gives raters of its own: an LLM judge under one showed its figures in the committee's report
    // columns and the heuristic's table columns (red team 36 M3)
    if (RESERVED_JUDGE_IDS.has(j.id.toLowerCase()))
      throw new JudgesConfigError(`${source}: judges[${i}].id: "${j.id}" is a name ipi-judge keeps for its own raters (committee: the committee's label; signature: the offline judge); give this judge another id`);
    seen.set(folded, j.id);
    checkCredentials(j, i, source);
    const owned = extraBodyProblem(j.extra_body);
    if (owned !== undefined) throw new JudgesConfigError(`${source}: judges[${i}] ("${j.id}").${owned}`);
  }
  for (const pat of Object.keys(obj.families ?? {})) {
    let re: RegExp;
    try {
      re = new RegExp(pat, "i");
    } catch {
      throw new JudgesConfigError(`${source}: families: pattern ${JSON.stringify(pat)} is not a valid regular expression`);
    }
    // red team 40: "" (or ".*") named every agent and judge model's maker, in silence
    if (re.test("")) throw new JudgesConfigError(`${source}: families: pattern ${JSON.stringify(pat)} matches an empty name, so every model: write a part of the model names it is for`);
  }
  return {
    judges: obj.judges.map((j) => ({ ...j })),
    retries: obj.retries ?? JUDGE_DEFAULTS.retries,
    min_quote_chars: obj.min_quote_chars ?? JUDGE_DEFAULTS.min_quote_chars,
    families: { ...(obj.families ?? {}) },
  };
}

/**
 * Request fields the judge sets itself, by what to use instead. `extra_body` is merged into the body last, so one of
 * these there replaced the judge's own in every request while the run recorded the judge's (red team 40:
 * `extra_body.model` sent another model than the verdicts, costs and families name; `max_tokens` there undid the
 * cost cap's worst case; `messages` replaced the rubric's prompt and the trajectory).
 */
const JUDGE_OWNED_FIELDS: Readonly<Record<string, string>> = {
  model: "the model is the judge's model field (the verdicts, costs and families record it)",
  messages: "the prompt is the rubric's (prompts/), rendered over each trajectory",
  temperature: "use the judge's temperature field (it is recorded, and left out for reasoning models)",
  max_tokens: "use the judge's max_tokens field (sent under the parameter the server takes; the cost cap reserves by it)",
  max_completion_tokens: "use the judge's max_tokens field (sent as max_completion_tokens to servers that want it, or with reasoning: true)",
  response_format: "use output_mode (json_schema, json_object or text) and schema_dialect",
  stream: "replies are read whole: a streamed reply would not be",
};

/**
 * What is wrong with a judge's `extra_body` that holds a field the judge sets itself ({@link JUDGE_OWNED_FIELDS}),
 * as `extra_body.<field>: ...`, or undefined. Checked when a configuration is read and when an LLM judge is made.
 */
export function extraBodyProblem(extra: Record<string, unknown> | undefined): string | undefined {
  for (const k of Object.keys(extra ?? {}))
    if (Object.hasOwn(JUDGE_OWNED_FIELDS, k)) return `extra_body.${k}: a field the judge sets itself, which extra_body would replace in every request while the run records the judge's own: ${JUDGE_OWNED_FIELDS[k]}`;
  // a judge made from code too (brk40: only a configuration file's was refused; choice 0 alone is read, the others
  // paid for, and the cost cap reserves one reply per request)
  if (extra && "n" in extra && extra.n !== 1)
    return `extra_body.n: several choices per request are not used (some servers reject n > 1, some answer with one choice; only choice 0 would be read, the others paid for past what --max-cost reserves); use label --repeats for independent repeats`;
  return undefined;
}

/** Query parameters and header names whose values are credentials (a key, a token, a signature, a password). */
const SECRET_NAME = /key|token|secret|passw|sig|auth|credential|session|cookie/i;

/** Matrix parameters of a URL path (`/v1;key=abc/x;v=2` -> [["key","abc"],["v","2"]]), names and values decoded. */
function matrixParams(pathname: string): Array<[string, string]> {
  const dec = (x: string) => {
    try {
      return decodeURIComponent(x);
    } catch {
      return x;
    }
  };
  const out: Array<[string, string]> = [];
  for (const seg of pathname.split("/"))
    for (const p of seg.split(";").slice(1)) {
      const eq = p.indexOf("=");
      out.push(eq < 0 ? [dec(p), ""] : [dec(p.slice(0, eq)), dec(p.slice(eq + 1))]);
    }
  return out;
}

/**
 * What is wrong with a `base_url` that the URL parser takes but repairs or reads otherwise (red team 37b F5:
 * `http://127.0.0.1:/v1`, an empty port, was taken and sent to port 80), or undefined: white space anywhere (cut or
 * percent-encoded by the parser), no host (`http:///v1` reads `v1` as the host), a `:` with no port after it, port 0,
 * a port with a leading zero (`:080` was sent to port 80), a query the client would rewrite: a parameter with no
 * `=` or a `/` in its name (`http://127.0.0.1:8000?x/v1`, the path after the query, went to
 * `/chat/completions?x%2Fv1=`; verifier 37). `?api-version=2024-10-21` after the path passes.
 */
export function baseUrlProblem(raw: string): string | undefined {
  if (/\s/.test(raw)) return "holds white space (a space, tab or line break): remove it";
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw);
  if (!m) return undefined;
  const authority = m[1].slice(m[1].lastIndexOf("@") + 1);
  const host = authority.startsWith("[") ? authority.slice(0, authority.indexOf("]") + 1) : authority.split(":")[0];
  if (host === "" || host === "[]") return "has no host (it should read like http://127.0.0.1:8000/v1)";
  const rest = authority.slice(host.length);
  if (rest === ":") return "has a ':' with no port after it (the request would go to the scheme's default port): write the port, or drop the ':'";
  const port = /^:(\d+)$/.exec(rest);
  if (rest !== "" && !port) return "has a host or port that is not valid";
  if (port && (Number(port[1]) < 1 || Number(port[1]) > 65535)) return `has port ${port[1]}: a port is 1 to 65535`;
  if (port && port[1].startsWith("0")) return `has port ${port[1]} written with a leading zero (it would be read as port ${Number(port[1])}): write the port without it`;
  return queryProblem(raw.slice(m[0].length));
}

/** What is wrong with the query of a base_url's path-and-query `rest` that the client would rewrite, or undefined. */
function queryProblem(rest: string): string | undefined {
  const q = rest.indexOf("?");
  if (q < 0) return undefined;
  for (const pair of rest.slice(q + 1).split("#")[0].split("&")) {
    if (pair === "") continue;
    const name = pair.split("=")[0];
    if (name.includes("/") || !pair.includes("="))
      return (
        `has a query the client would rewrite (a parameter ${name.includes("/") ? "with a '/' in its name: a path written after the '?'" : "with no '='"}; ` +
        `the client sends it as an empty query parameter after /chat/completions): put the path before the query (http://HOST:PORT/v1?api-version=...), ` +
        `or send the parameters with query_env`
      );
  }
  return undefined;
}

/**
 * Credentials a judge's configuration must not hold in plain text, checked when the config is read: userinfo in
 * `base_url` (`https://user:pass@host`), a secret-looking query parameter in `base_url` (`?key=...`) or matrix
 * parameter (`/v1;key=...`), any fragment (`#...`: never sent to the server, so it can only be a mistake or a
 * pasted credential), and a secret-looking literal header. Each names the judge and the field, never the value,
 * and says what to use.
 */
function checkCredentials(j: JudgeConfig, i: number, source: string): void {
  const at = `${source}: judges[${i}] ("${j.id}")`;
  if (j.base_url !== undefined) {
    let u: URL;
    try {
      u = new URL(j.base_url);
    } catch {
      const port = /:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/.exec(j.base_url)?.[1];
      throw new JudgesConfigError(`${at}.base_url is not a valid URL${port !== undefined && Number(port) > 65535 ? ` (port ${port}: a port is 1 to 65535)` : ""}`);
    }
    const malformed = baseUrlProblem(j.base_url);
    // the value is not repeated: it may hold a credential the checks below refuse
    if (malformed) throw new JudgesConfigError(`${at}.base_url ${malformed}`);
    if (u.username || u.password)
      throw new JudgesConfigError(
        `${at}.base_url holds credentials (user:password@host); they are refused so they never reach a verdict, error or log. ` +
          `Put the API key in the variable api_key_env names, or other credentials in headers_env (e.g. {"Authorization": "MY_BASIC_AUTH"}).`,
      );
    for (const name of u.searchParams.keys())
      if (SECRET_NAME.test(name))
        throw new JudgesConfigError(
          `${at}.base_url has a credential in its query string (parameter "${name}"); it is refused so it never reaches a verdict, ` +
            `error or log. Use query_env instead: {"${name}": "<ENV_VAR holding it>"}; it is sent on every request.`,
        );
    for (const [name] of matrixParams(u.pathname))
      if (SECRET_NAME.test(name))
        throw new JudgesConfigError(
          `${at}.base_url has a credential in a matrix parameter of its path (";${name}=..."); it is refused so it never reaches a verdict, ` +
            `error or log. Send it as a query parameter from the environment (query_env: {"${name}": "<ENV_VAR holding it>"}) or a header (headers_env).`,
        );
    if (u.hash)
      throw new JudgesConfigError(
        `${at}.base_url has a fragment ("#..."); a fragment is never sent to the server, so whatever it holds would be lost (and a credential there would be written in the store). ` +
          `Remove it; a credential goes in query_env or headers_env.`,
      );
  }
  for (const name of Object.keys(j.headers ?? {}))
    if (/^authorization$|^proxy-authorization$|^cookie$/i.test(name) || SECRET_NAME.test(name))
      throw new JudgesConfigError(
        `${at}.headers["${name}"] looks like a credential; literal credentials are refused. Use headers_env: {"${name}": "<ENV_VAR holding it>"}.`,
      );
  const secretKey = credentialKeyIn(j.extra_body);
  if (secretKey !== undefined)
    throw new JudgesConfigError(
      `${at}.extra_body.${secretKey} looks like a credential; literal credentials are refused (extra_body is written in the run's store.json and sent as is). ` +
        `Send it from the environment as a header (headers_env: {"<header>": "<ENV_VAR holding it>"}) or a query parameter (query_env).`,
    );
}

/**
 * Key names of a request body field that hold a credential (red team 31 L3d: `extra_body.api_key` was written into
 * store.json): `api_key`, `key`, `token`, `access_token`, `secret`, `client_secret`, `password`, `authorization`,
 * `auth`, `credentials`, `cookie`, `bearer`..., as a whole name or its last `_`/`-`/`.` separated words. Narrower
 * than the header rule: body fields such as `max_tokens` or `prompt_cache_key` are no credentials.
 */
const CREDENTIAL_KEY = /(^|[_.-])(api[_-]?key|apikey|key|token|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|bearer|secret|secret[_-]?key|private[_-]?key|client[_-]?secret|passw(or)?d|pwd|authorization|auth|credentials?|cookie|session[_-]?(id|token))$/i;
/** Last words of such names that are a parameter, not a credential. */
const NOT_CREDENTIAL_KEY = /(^|[_.-])(cache[_-]?key|idempotency[_-]?key|max[_-]?tokens?|tokens?[_-]?limit)$/i;

/** The path (`a.b.api_key`) of the first credential-looking key ({@link CREDENTIAL_KEY}) in a JSON value, at any depth. */
function credentialKeyIn(v: unknown, at = "", depth = 0): string | undefined {
  if (depth > 32 || typeof v !== "object" || v === null) return undefined;
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) {
      const hit = credentialKeyIn(x, `${at}[${i}]`, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  for (const [k, x] of Object.entries(v)) {
    const here = at === "" ? k : `${at}.${k}`;
    if (CREDENTIAL_KEY.test(k) && !NOT_CREDENTIAL_KEY.test(k)) return here;
    const hit = credentialKeyIn(x, here, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** How to build a judge's `openai` client, credentials resolved from the environment, and what to redact. */
export interface ClientSettings {
  apiKey: string;
  /** `base_url` without credentials, query or fragment; undefined = the OpenAI API. */
  baseURL?: string;
  defaultQuery?: Record<string, string>;
  defaultHeaders?: Record<string, string>;
  /** Every credential value (API key, userinfo, secret query values, `headers_env` values): never written anywhere. */
  secrets: string[];
}

/**
 * The client settings of a judge: the API key (`resolveApiKey`), `base_url` split into its path and its query
 * (sent as `defaultQuery`: the client appends paths to the base URL, so a query left in it would corrupt every
 * path), `query_env` and `headers_env` values from the environment, literal `headers`. Userinfo in `base_url` (only
 * reachable from code: `loadJudgesConfig` refuses it) is dropped from the URL and redacted, never sent.
 * @throws JudgesConfigError naming a variable that is unset (never a value).
 */
export function clientSettings(cfg: JudgeConfig, env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const apiKey = resolveApiKey(cfg, env);
  const secrets: string[] = apiKey === NO_KEY ? [] : [apiKey];
  const out: ClientSettings = { apiKey, secrets };
  if (cfg.base_url !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(cfg.base_url);
    } catch {
      out.baseURL = cfg.base_url;
    }
    if (u) {
      // the password always; a user name only when long enough to be a token (a short one, "user", would blank
      // that word in every rationale)
      if (u.password) secrets.push(u.password, decodeURIComponent(u.password));
      if (u.username.length >= 8) secrets.push(u.username, decodeURIComponent(u.username));
      const q: Record<string, string> = {};
      for (const [k, v] of u.searchParams) {
        q[k] = v;
        if (SECRET_NAME.test(k) && v) secrets.push(v);
      }
      if (Object.keys(q).length) out.defaultQuery = q;
      // matrix parameters stay in the path (a server may need them); a secret-looking one is redacted everywhere
      for (const [k, v] of matrixParams(u.pathname)) if (SECRET_NAME.test(k) && v) secrets.push(v);
      out.baseURL = `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, "")}`;
    }
  }
  const fromEnv = (map: Record<string, string> | undefined, what: string): Record<string, string> => {
    const r: Record<string, string> = {};
    for (const [name, variable] of Object.entries(map ?? {})) {
      const v = env[variable];
      if (v === undefined || v.trim() === "")
        throw new JudgesConfigError(`judge "${cfg.id}": environment variable ${variable} (${what} "${name}") is not set`);
      r[name] = v.trim();
      secrets.push(v.trim());
    }
    return r;
  };
  const query = fromEnv(cfg.query_env, "query_env parameter");
  if (Object.keys(query).length) out.defaultQuery = { ...(out.defaultQuery ?? {}), ...query };
  const headers = { ...(cfg.headers ?? {}), ...fromEnv(cfg.headers_env, "headers_env header") };
  if (Object.keys(headers).length) out.defaultHeaders = headers;
  out.secrets = [...new Set(secrets.filter((x) => x.length >= 4))];
  return out;
}

/**
 * Read, parse and validate a judges configuration file (JSON).
 * @param file path to the JSON file.
 * @param opts.checkKeys (default true) also check that every judge's `api_key_env` is set in `opts.env`
 *   (default `process.env`), so a missing key is reported before any request is sent.
 * @throws JudgesConfigError for an unreadable file, bad JSON, a schema violation (naming the field), a duplicate
 *   id, or a missing API key variable (naming the variable, never a value).
 */
export function loadJudgesConfig(
  file: string,
  opts: { checkKeys?: boolean; env?: NodeJS.ProcessEnv } = {},
): JudgesConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new JudgesConfigError(`${file}: cannot read judges configuration: ${(e as Error).message}`);
  }
  const read = configJson(text); // a byte order mark dropped, a key given twice with different values refused
  if ("problem" in read) throw new JudgesConfigError(`${file}: ${read.problem}`);
  const cfg = parseJudgesConfig(read.value, file);
  if (opts.checkKeys ?? true) for (const j of cfg.judges) clientSettings(j, opts.env);
  return cfg;
}

/**
 * The API key of a judge: the value of `process.env[cfg.api_key_env]`, or `NO_KEY` ("not-needed") when the
 * judge names no variable (local servers).
 * @throws JudgesConfigError when the named variable is unset or empty. The message names the variable only.
 */
export function resolveApiKey(cfg: Pick<JudgeConfig, "id" | "api_key_env">, env: NodeJS.ProcessEnv = process.env): string {
  if (cfg.api_key_env === undefined) return NO_KEY;
  const v = env[cfg.api_key_env];
  if (v === undefined || v.trim() === "")
    throw new JudgesConfigError(
      `judge "${cfg.id}": environment variable ${cfg.api_key_env} is not set (it must hold the API key; ` +
        `omit api_key_env for a local server that needs no key)`,
    );
  return v.trim();
}

/**
 * The family of a model name by the configuration's `families` map (overrides of the built-in table in
 * `src/ingest/family.ts`): the first pattern (in file order) that matches, as a case-insensitive regular
 * expression, anywhere in the name.
 * @returns the family, or `undefined` when no pattern matches (callers then use the built-in table).
 */
export function configuredFamily(model: string, families: Record<string, string>): string | undefined {
  for (const [pat, fam] of Object.entries(families)) if (new RegExp(pat, "i").test(model)) return fam;
  return undefined;
}
