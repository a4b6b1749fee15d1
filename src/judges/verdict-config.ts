/**
 * What in a judge's configuration can change its verdicts (issue 12, point 5): the part of the config that goes
 * into the resume key (`judge_config_sha256`, `../store/config-key.ts`), so a judge whose model, sampling, output
 * mode, reply schema, feedback policy, quote length or endpoint changed is never taken as the same judge.
 *
 * Generic by design: EVERY field of the judge's config counts, except the ones listed in
 * {@link NON_VERDICT_FIELDS} (pacing, timeouts, price, credentials, headers, labels). A field added to the config
 * later counts automatically until it is listed there.
 */
import { judgeSettings, NON_VERDICT_FIELDS as CONFIG_NON_VERDICT_FIELDS, type JudgeConfig } from "../config/judges.js";
import { responseFormat } from "../providers/schema-dialects.js";

/**
 * Config fields that cannot change a verdict, left out of the key: the judge id (a key field of its own),
 * `family` (a label for leniency analysis), pacing and parallelism (`concurrency`, `rpm`, `tpm`), `timeout_s`
 * (a timeout gives an error, never another label), `batch` (the same request through the Batch API),
 * credentials and transport headers (`api_key_env`, `headers`, `header_env`, `headers_env`, `query_env`), and
 * `price`: the judge's own list ({@link CONFIG_NON_VERDICT_FIELDS}, `./config.ts`) plus the id and the labels. What
 * of the headers and query parameters can route a request enters the key as `transport` ({@link transportOf}).
 */
export const NON_VERDICT_FIELDS: ReadonlySet<string> = new Set<string>(["id", "family", "header_env", ...CONFIG_NON_VERDICT_FIELDS]);

/**
 * Version of the conversation policy (feedback turn texts, retry and downgrade rules) that is not in the config:
 * raise it when a code change can change the verdict of the same reply. A run stored under another version is refused
 * on resume (`../run/config-change.ts`: "changed: conversation_version ...") until `--on-config-change` decides.
 * 3 (red team 35a): a finding an earlier reply verified is kept when the last reply leaves it out (`../verdict/carry.ts`),
 * and a quote needs 8 letters, marks or digits (`../evidence/verify.ts` `MIN_QUOTE_TEXT`).
 */
export const CONVERSATION_VERSION = "3";

/** `base_url` without credentials (userinfo, query string, fragment): scheme, host, port and path only. */
export function endpointOf(baseUrl: string | undefined): string | null {
  if (baseUrl === undefined) return null;
  try {
    const u = new URL(baseUrl);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "(unparseable base_url)";
  }
}

/**
 * The verdict-affecting configuration of an OpenAI-compatible judge, as a plain JSON object: the judge's config
 * with defaults applied (`judgeSettings`, the one place they are), minus {@link NON_VERDICT_FIELDS}, `base_url` reduced to {@link endpointOf}, plus the
 * run-level settings the judge applies (`retries`, `min_quote_chars`, `budget_chars`), the reply schema sent
 * for its output mode, and {@link CONVERSATION_VERSION}.
 * @param cfg the judge's config (as in the config file).
 * @param common the run-level settings the judge was created with.
 */
export function verdictConfig(
  cfg: JudgeConfig,
  common: { retries?: number; minQuoteChars?: number; budgetChars?: number },
): Record<string, unknown> {
  const settings = judgeSettings(cfg, common);
  const full = settings.config as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(full)) {
    if (NON_VERDICT_FIELDS.has(k) || v === undefined) continue;
    out[k] = k === "base_url" ? endpointOf(v as string) : v;
  }
  out.retries = settings.retries;
  out.min_quote_chars = settings.min_quote_chars;
  out.budget_chars = settings.budget_chars;
  // the reply schema of the output mode in the OpenAI form: a dialect's rewrite of it follows from `base_url` and
  // `schema_dialect`, both hashed above (kept so, so that stored runs keep their key)
  out.reply_format = responseFormat(full.output_mode as JudgeConfig["output_mode"] & string) ?? null;
  out.conversation_version = CONVERSATION_VERSION;
  const transport = transportOf(cfg);
  if (transport !== undefined) out.transport = transport;
  return out;
}

/**
 * What of a judge's requests the fields left out of the key still route (red team 31 L4b: a changed `query_env` or
 * `headers` resumed with no notice, though a header or query parameter can pick another deployment, provider or
 * model version): the literal `headers` (names lowercased; credential-looking ones are refused by the config
 * check), the header names and variable names of `headers_env`, the parameter names and variable names of
 * `query_env`, and the query parameters of `base_url` (a credential-looking one, refused by the config check, by
 * name only). Never a value read from the environment. Undefined when the judge has none: the key of a judge without
 * them is what it was before this field.
 */
export function transportOf(cfg: JudgeConfig): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const lower = (m: Record<string, string> | undefined) => Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  if (cfg.headers && Object.keys(cfg.headers).length) out.headers = lower(cfg.headers);
  if (cfg.headers_env && Object.keys(cfg.headers_env).length) out.headers_env = lower(cfg.headers_env);
  if (cfg.query_env && Object.keys(cfg.query_env).length) out.query_env = { ...cfg.query_env };
  if (cfg.base_url !== undefined) {
    try {
      const q: Record<string, string> = {};
      for (const [k, v] of new URL(cfg.base_url).searchParams) q[k] = SECRET_QUERY.test(k) ? "(credential)" : v;
      if (Object.keys(q).length) out.base_url_query = q;
    } catch {
      // an unparseable base_url is in the key as such (endpointOf)
    }
  }
  return Object.keys(out).length ? out : undefined;
}

/** Query parameter names whose values are credentials (as the config check reads them): kept by name only. */
const SECRET_QUERY = /key|token|secret|passw|sig|auth|credential|session|cookie/i;
