/**
 * McNemar's exact test on the discordant pairs of a paired 2x2 table (McNemar 1947; exact form: the conditional
 * binomial test, Agresti 2013 "Categorical Data Analysis" §11.1.4): under no difference each of the b + c discordant
 * pairs falls either way with probability 1/2, so the two-sided p-value is min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, 1/2)
 * (R's `mcnemar.test` is the chi-square form; `binom.test(b, b + c)` is this one).
 */

/** The exact two-sided p-value, or null with the reason when no pair is discordant (the test has nothing to test). */
export interface McNemarExact {
  p: number | null;
  /** Discordant pairs: b + c. */
  discordant: number;
  reason?: "no_discordant_pairs";
}

/**
 * Exact McNemar p-value for `b` pairs with the event under the first condition only and `c` under the second only.
 * Summed in log space (lgamma-free: log binomial coefficients by running sums), so thousands of pairs stay exact
 * to double precision.
 * @throws Error when b or c is negative or not an integer.
 */
export function mcnemarExact(b: number, c: number): McNemarExact {
  for (const x of [b, c]) if (!Number.isInteger(x) || x < 0) throw new Error(`mcnemarExact: bad count ${x}`);
  const n = b + c;
  if (n === 0) return { p: null, discordant: 0, reason: "no_discordant_pairs" };
  const k = Math.min(b, c);
  // log C(n, i) for i = 0..k, log 2^-n
  let logC = 0;
  let tail = 0;
  const ln2n = n * Math.LN2;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logC - ln2n);
  }
  return { p: Math.min(1, 2 * tail), discordant: n };
}
