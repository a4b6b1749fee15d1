/**
 * A rate figure as text (`12.5% [9.4, 16.4] (45/360)`): the one way every output shows a proportion of
 * src/stats/rate-figure.ts (re-exported by `./rates-text.ts`, where it was first defined).
 */
import type { RateFigure } from "../stats/rate-figure.js";
import { pctText } from "./stat-text.js";

/** `12.5% [9.4, 16.4] (45/360)`, or `undefined (<why>)`. */
export function rateFigureText(r: RateFigure): string {
  if (r.rate === null) return pctText(null, r.reason);
  const ci = r.ci95 ? ` [${(100 * r.ci95.lower).toFixed(1)}, ${(100 * r.ci95.upper).toFixed(1)}]` : "";
  return `${pctText(r.rate)}${ci} (${r.count}/${r.n})`;
}
