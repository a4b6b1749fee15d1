/**
 * Errors that several layers throw and the CLI maps to exit codes: a usage or configuration error (exit 2) and a judge
 * that must stop (its items stay un-judged for a resume). Kept outside `cli/` so no library module imports the CLI.
 */
/** A usage or configuration error: the CLI prints it and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * `label` stopped (Ctrl-C, SIGTERM) before it read any input (while it read the run back or counted the inputs):
 * nothing was judged and the run is as the last invocation left it. The CLI prints it and exits 130.
 */
export class StoppedBeforeWorkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoppedBeforeWorkError";
  }
}

/**
 * A command that prints figures from judges' verdicts has none to print because the judge(s) it was asked for stored
 * no verdict there and were stopped (a fatal error, `--max-cost`, Ctrl-C, a crash on most items: `../cli/stopped-exit.ts`):
 * not "nothing to compare" (exit 0) nor a usage error, but the broken-judge rule's exit 3 (`EXIT.brokenJudge`), the
 * message naming each judge and why.
 */
export class StoppedJudgesError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoppedJudgesError";
  }
}

/** Exit codes: 0 success (including runs where some items failed and were recorded), 1 fatal, 2 usage/config, 3 finished but a judge looks broken: for `label` one it ran (its rates carry a caveat, or it crashed on most items sent it), for `agree`, `committee`, `report`, `estimate` and `compare` one behind their figures (../verdict/broken-judge.ts), 130 interrupted. */
export const EXIT = { ok: 0, fatal: 1, usage: 2, brokenJudge: 3, interrupted: 130 } as const;

/**
 * Thrown by a judge or its provider when it cannot go on at all (401/403, insufficient_quota, an unreachable or
 * incompatible server, a persistent reasoning-only reply): `kind` names the cause; the runner stops this judge.
 */
export class JudgeFatalError extends Error {
  constructor(
    public readonly judgeId: string,
    public readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = "JudgeFatalError";
  }
}
