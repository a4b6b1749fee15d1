/** A usage or configuration error: the CLI prints it and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Exit codes: 0 success (including runs where some items failed and were recorded), 1 fatal, 2 usage/config. */
export const EXIT = { ok: 0, fatal: 1, usage: 2, interrupted: 130 } as const;
