/**
 * The difference between two paired binomial proportions with Newcombe's hybrid score interval (Newcombe RG,
 * "Improved confidence intervals for the difference between binomial proportions based on paired data", Stat Med
 * 1998;17:2635-2650, method 10). The pairs form a 2x2 table: e both events, f the first only, g the second only, h
 * neither (n = e + f + g + h); p1 = (e + f)/n, p2 = (e + g)/n, θ = p1 − p2 = (f − g)/n. With [l2, u2] and [l3, u3]
 * the Wilson score intervals of p1 and p2:
 *   L = θ − sqrt((p1 − l2)² − 2φ(p1 − l2)(u3 − p2) + (u3 − p2)²),
 *   U = θ + sqrt((u2 − p1)² − 2φ(u2 − p1)(p2 − l3) + (p2 − l3)²),
 * where φ is the correlation of the table's margins with the paper's continuity correction: A = (e+f)(g+h)(e+g)(f+h),
 * B = eh − fg; C = B − n/2 when B > n/2, B when B < 0, else 0; φ = C/√A (0 when A = 0).
 * Checked against the paper's own worked examples (test/data/vectors/newcombe_1998_differences.json).
 */
import { wilsonInterval } from "./confusion.js";
import type { ProportionDifference } from "./newcombe-unpaired.js";

/** A paired 2x2 table: `both` events, `first_only`, `second_only`, `neither`. */
export interface PairedTable {
  both: number;
  first_only: number;
  second_only: number;
  neither: number;
}

/**
 * Newcombe's paired hybrid score interval (method 10, Stat Med 17:2635-2650) for p1 − p2 over paired observations.
 * @returns the difference (first − second) and its interval; null with reason `no_pairs` when the table is empty.
 * @throws Error when a cell is negative or not an integer.
 */
export function newcombePaired(t: PairedTable, level = 0.95): ProportionDifference {
  const { both: e, first_only: f, second_only: g, neither: h } = t;
  for (const x of [e, f, g, h]) if (!Number.isInteger(x) || x < 0) throw new Error(`newcombePaired: bad cell ${x}`);
  const n = e + f + g + h;
  if (n === 0) return { difference: null, lower: null, upper: null, level, reason: "no_pairs" };
  const p1 = (e + f) / n;
  const p2 = (e + g) / n;
  const w1 = wilsonInterval(p1, n, level);
  const w2 = wilsonInterval(p2, n, level);
  const a = (e + f) * (g + h) * (e + g) * (f + h);
  const b = e * h - f * g;
  const c = b > n / 2 ? b - n / 2 : b < 0 ? b : 0;
  const phi = a > 0 ? c / Math.sqrt(a) : 0;
  const theta = (f - g) / n;
  const dl1 = p1 - w1.lower;
  const du1 = w1.upper - p1;
  const dl2 = p2 - w2.lower;
  const du2 = w2.upper - p2;
  // a rounding residue can leave the radicand a hair below 0 (both terms 0): clamp, it is a square
  const root = (x: number) => Math.sqrt(Math.max(0, x));
  const lower = theta - root(dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2);
  const upper = theta + root(du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2);
  return { difference: theta, lower: Math.max(-1, lower), upper: Math.min(1, upper), level };
}
