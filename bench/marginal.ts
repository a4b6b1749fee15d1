/**
 * The realistic mode's marginal CPU per request (`npm run bench -- --realistic-marginal M`, issue 26 point 2): the
 * whole-run figure (CPU of one run / its items) carries costs a run pays once whatever its size (Node.js start and
 * module loading, V8 compiling the hot code on its helper threads, the run's setup and final summary), which the
 * tiny bare loop pays less of. Measuring each program at two sizes n < M against the same server separates them:
 *
 *   marginal ms per item = (CPU(M) - CPU(n)) / (M - n)        fixed ms = CPU(n) - n x marginal
 *
 * (CPU = user + system of the whole process, `bench/probe.mjs`; a straight line through the two runs, so the
 * figure assumes the per-item cost does not itself grow with the run, which the two sizes cannot show). Both the
 * whole-run ratio (the figure) and the marginal one are printed: neither replaces the other.
 */

/** One program's CPU at one run size. */
export interface CpuAt {
  /** Items of the run. */
  n: number;
  /** User + system CPU of the whole process, ms. */
  cpuMs: number;
}

/**
 * The straight line through two runs of one program: `marginal` ms per item between them and the `fixed` ms it
 * implies at zero items (may come out negative when the runs' noise exceeds the fixed cost: printed as is).
 * @throws Error when the sizes are equal (no line).
 */
export function marginalCpu(small: CpuAt, big: CpuAt): { marginal: number; fixed: number } {
  if (big.n === small.n) throw new Error(`marginal CPU needs two run sizes, got ${small.n} twice`);
  const marginal = (big.cpuMs - small.cpuMs) / (big.n - small.n);
  return { marginal, fixed: small.cpuMs - small.n * marginal };
}

/**
 * The lines the realistic mode prints for `--realistic-marginal`: each `label` build's and the bare loop program's
 * CPU at both sizes, their marginal and fixed costs, and `label`'s marginal ratio to the bare loop's beside the
 * whole-run ratio at each size.
 * @param label CPU of each `label` build at n and at M, by name. @param bare the bare loop program's, the same.
 */
export function marginalLines(label: Record<string, [CpuAt, CpuAt]>, bare: [CpuAt, CpuAt]): string[] {
  const b = marginalCpu(bare[0], bare[1]);
  const per = (c: CpuAt) => (c.cpuMs / c.n).toFixed(2);
  const out = [
    `  marginal CPU per request (n = ${bare[0].n} and ${bare[1].n}): bare loop program ${per(bare[0])} / ${per(bare[1])} ms/item whole-run, ` +
      `marginal ${b.marginal.toFixed(2)} ms/item, fixed ${(b.fixed / 1000).toFixed(1)} s`,
  ];
  for (const [name, [s, g]] of Object.entries(label)) {
    const l = marginalCpu(s, g);
    out.push(
      `  ${name}: ${per(s)} / ${per(g)} ms/item whole-run (${(s.cpuMs / bare[0].cpuMs).toFixed(2)}x / ${(g.cpuMs / bare[1].cpuMs).toFixed(2)}x the bare loop's), ` +
        `marginal ${l.marginal.toFixed(2)} ms/item, fixed ${(l.fixed / 1000).toFixed(1)} s: marginal ratio ${(l.marginal / b.marginal).toFixed(2)}x (target <= 1.5x)`,
    );
  }
  return out;
}
