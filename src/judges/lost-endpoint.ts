/**
 * The lost-endpoint rule of an LLM judge: a server that answered before and then stops accepting connections (it was
 * killed, its host went away) is stopped, not ground through item by item for hours (new user 45: a local server
 * killed mid-run, then 10 minutes of progress lines at 0.1 item/s and one `judge_error` per item, nothing else said).
 *
 * What counts: an item whose every request got no answer at all from the server (`SendResult.unconnected`, the
 * classification of `../providers/no-answer.ts`): refused, unknown host, unreachable network; no connection made in
 * time (a host that is off drops the packets: a connect timeout); or the connection closed or reset before any
 * response byte (a port forward or proxy with nothing behind it). Every such item already took its transport retries
 * (6 by default, backoff 1 s doubling to 30 s: ~30-60 s of refusals, ~100 s of 10 s connect timeouts), so a server
 * restart of a few seconds never makes one. Any other outcome (a reply, a 4xx or 5xx, a timeout after the request was
 * sent, a body cut after its headers, a bad body) reached a live server: it ends the streak and restarts the clock.
 * Timeouts after the request was sent and 5xx keep their own policy (retries, then `judge_error`; the never-answered
 * rule `UNREACHABLE_STOP`): a busy server accepts connections and answers late, and a 5xx is an answer, so neither
 * is taken for a server that is gone. A server that answers some requests is never stopped: one reply ends the streak.
 *
 * The stop: {@link LOST_ENDPOINT}.stopItems such items in a row AND {@link LOST_ENDPOINT}.stopMs with no item that
 * reached the server (both: a burst of concurrent items failing together in a short outage is not enough, nor is
 * one slow item). A warning once per streak when it first reaches {@link LOST_ENDPOINT}.warnItems.
 */
import { JudgeFatalError } from "../errors.js";
import { safeBase } from "../providers/faults.js";

/**
 * The defaults: warn at 4 items in a row with no answer from the server; stop at 8 and 120 s since the last item that reached
 * the server. At concurrency 4 a dead server is stopped after ~2-3 min (8 items at ~45 s each, 4 at a time); at
 * concurrency 1 after ~6 min. A model server that reloads within ~2 min is waited for.
 */
export const LOST_ENDPOINT = { warnItems: 4, stopItems: 8, stopMs: 120_000 } as const;

/** Thresholds and clock of the rule (tests set them; `OpenAIJudgeCommon.lostEndpoint`). */
export interface LostEndpointOptions {
  /** Items in a row with no answer before the warning (default 4). */
  warnItems?: number;
  /** Items in a row with no answer before the stop (default 8). */
  stopItems?: number;
  /** Milliseconds with no item that reached the server before the stop (default 120000). */
  stopMs?: number;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
}

/** A duration in ms as "2 min 5 s" / "45 s". */
export function minutesSeconds(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** The rule's state for one judge: items in a row with no answer, and since when nothing reached the server. */
export class LostEndpoint {
  readonly #o: Required<LostEndpointOptions>;
  #streak = 0;
  /** When the last item that reached the server ended (ms), or, before any, when the first one with no answer did. */
  #quietSince: number | undefined;
  #warned = false;
  /** Items that ended in an error since the last reply (stored as `judge_error`: the stop message counts them). */
  #failedSinceReply = 0;

  /**
   * @param judgeId the judge named in the messages.
   * @param baseURL the judge's base URL (its host is named; credentials, query and fragment never are).
   */
  constructor(
    private readonly judgeId: string,
    private readonly baseURL: string | undefined,
    opts: LostEndpointOptions = {},
  ) {
    this.#o = { ...LOST_ENDPOINT, now: Date.now, ...stripUndefined(opts) };
  }

  /**
   * Count one item's end. `unconnected`: no request of it had any answer (its error message in `message`);
   * `reply`: the server replied; `reached`: something answered at the address but the item ended in an error (a 5xx,
   * a timeout, a reset); `neutral` (an item cut short by Ctrl-C) changes nothing.
   * @returns a warning to say now (once per streak, at `warnItems`), else undefined.
   * @throws JudgeFatalError kind `endpoint_lost` at `stopItems` in a row and `stopMs` since anything reached the server.
   */
  observe(item: "unconnected" | "reply" | "reached" | "neutral", message = ""): string | undefined {
    const now = this.#o.now();
    if (item === "neutral") return undefined;
    this.#failedSinceReply = item === "reply" ? 0 : this.#failedSinceReply + 1;
    if (item !== "unconnected") {
      this.#streak = 0;
      this.#warned = false;
      this.#quietSince = now;
      return undefined;
    }
    this.#quietSince ??= now;
    const n = ++this.#streak;
    const quiet = now - this.#quietSince;
    const base = safeBase(this.baseURL, "https://api.openai.com/v1");
    const host = hostOf(base);
    if (n >= this.#o.stopItems && quiet >= this.#o.stopMs)
      throw new JudgeFatalError(
        this.judgeId,
        "endpoint_lost",
        `judge "${this.judgeId}": ${n} items in a row got no answer from ${host} (base_url ${base}) after every retry (refused, ` +
          `no connection made, or closed before any response), and no request has reached it for ${minutesSeconds(quiet)} (the last: ${message}). ` +
          `The server answered before: it was stopped, its host is off, or nothing is behind its address now. Restart it and run the same command with --retry-errors: the ${this.#failedSinceReply - 1} items that failed ` +
          `since its last reply are stored as judge_error (so are any in flight now) and are judged again; its remaining items stay un-judged for the resume.`,
      );
    if (n >= this.#o.warnItems && !this.#warned) {
      this.#warned = true;
      return (
        `judge ${this.judgeId}: ${n} items in a row got no answer from ${host} (base_url ${base}) after every retry ` +
        `(${message}); nothing has reached it for ${minutesSeconds(quiet)}. Is the server down? The judge stops at ` +
        `${this.#o.stopItems} such items and ${minutesSeconds(this.#o.stopMs)}; the run goes on (Ctrl-C stops it, keeping what is stored)`
      );
    }
    return undefined;
  }
}

/** The options given, without their undefined fields (so that the defaults stay). */
function stripUndefined(o: LostEndpointOptions): LostEndpointOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as LostEndpointOptions;
}

/** The host of a base URL (the URL itself when it does not parse). */
function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}
