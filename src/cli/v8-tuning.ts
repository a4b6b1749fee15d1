/**
 * V8 compiler settings for `label` (issue 26). On the offline signature judge a quarter of label's CPU went to
 * V8's background threads: concurrent TurboFan compilation, in the main isolate and again in each judge worker
 * (every isolate compiles its own hot code), and it grew with the run (more functions get hot, deoptimize on a new
 * object shape, and are compiled again). Most of a TurboFan job's cost here is inlining: large callers
 * (`decideSurfaces`, the judge's `analyze`) inline their whole call trees, and every re-optimization redoes it.
 *
 * Measured (10,000 AgentDojo runs, 2 workers, CPU seconds per thread from /proc, quiet 2-core host, six runs
 * alternating): `--no-turbo-inlining` cut the V8 helper threads from 4.4-5.2 s to 2.7-2.9 s with the main thread
 * and the workers about unchanged (their code without inlining is not measurably slower on this workload): total
 * CPU -13%, wall -10%. On a host loaded 10x over it gains only 2-3% (the main thread then pays ~10% more).
 * Outputs are unchanged (a compiler setting, not a semantic one; checked byte for byte on four
 * corpora, README-bench.md "Signature CPU, round two").
 *
 * With LLM judges too (issue 26, CPU per request; README-bench.md "LLM CPU, round three"): 2,000 AgentDojo runs
 * against the bench's server at 300 ms / 64 in flight, CPU seconds per thread from /proc, three interleaved pairs at
 * load average 17-18 on 2 cores: V8's helper threads 2.33-2.40 s without the setting, 1.80-1.92 s with it, the main
 * thread unchanged within the noise (5.75-6.09 s against 5.87-6.14 s); `label` 4.08-4.26 against 3.87-4.04 ms of
 * CPU per item. At 5,000 items the helpers lost 22-27% again but the main thread paid ~4-6% more, and `bench/run.ts`
 * (one run per build) showed no net change (3.86 ms/item both, order swapped). It is made for every `label` run:
 * one setting for both judge kinds, never measured to cost CPU.
 *
 * The setting is process-wide and is made at the start of a `label` run, before any hot code and before the
 * signature judge's workers start (a worker's isolate takes the process's V8 flags). `IPI_TURBO_INLINING=1` keeps
 * V8's default (to compare, or should a future V8 handle it differently). Where the runtime refuses the flag,
 * nothing changes.
 */
import v8 from "node:v8";

/**
 * The old generation's growing factor `label` sets, percent (V8's `--heap-growing-percent`: after each of its own
 * full collections V8 lets the heap grow to (1 + p/100) x what survived before the next). Why (issue 26, README-bench
 * "Session 19"): `label` used to bound its heap with forced full collections (`gc()`, `../io/heap-gc.ts`), and a
 * forced collection drops optimized code (V8 marks code embedding objects it clears for deoptimization, "weak objects"),
 * so every one of them sent tens of hot functions back to the compiler: in a 15,000-trajectory signature run, 57 such
 * deoptimizations and 1,242 TurboFan compilations (5.6 s of compiler CPU) against 0 and 794 (2.9 s) with V8 collecting
 * by itself. V8's own collections, left alone, let the heap grow lazily (924 MB at 100k); with the factor at 50% they
 * come as often as the forced rule did (it allowed half the live heap of growth) and leave optimized code alone. 100k
 * AgentDojo runs, signature judge, user + sys CPU: 65-72 s against 70-90 s forced, peak RSS 248 MB against 267-287 MB.
 */
export const LABEL_HEAP_GROWING_PERCENT = 50;

/**
 * Set V8's old-generation growing factor for this process ({@link LABEL_HEAP_GROWING_PERCENT}; process-wide, so the
 * signature judge's workers started later take it too). `env.IPI_HEAP_GROWING_PERCENT` overrides it: a whole number
 * 1-1000, or `0` to keep V8's own dynamic factor (to compare). Anything else is ignored (the default is set).
 * @param env the environment to read (default `process.env`). @param percent the factor when the environment sets none.
 * @returns the percent set, or undefined when V8's default is kept or the runtime refuses the flag.
 */
export function tuneHeapForLabel(env: NodeJS.ProcessEnv = process.env, percent: number = LABEL_HEAP_GROWING_PERCENT): number | undefined {
  const given = env.IPI_HEAP_GROWING_PERCENT;
  const asked = given !== undefined && /^\d{1,4}$/.test(given) && Number(given) <= 1000 ? Number(given) : percent;
  if (asked === 0) return undefined;
  try {
    v8.setFlagsFromString(`--heap-growing-percent=${asked}`);
    return asked;
  } catch {
    return undefined;
  }
}

/**
 * Switch off TurboFan inlining for this process unless `env.IPI_TURBO_INLINING === "1"`.
 * @param env the environment to read (default `process.env`).
 * @returns true when the flag was set, false when kept at V8's default or refused.
 */
export function tuneCompilerForLabel(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.IPI_TURBO_INLINING === "1") return false;
  try {
    v8.setFlagsFromString("--no-turbo-inlining");
    return true;
  } catch {
    return false;
  }
}

/**
 * The commands after `label` read the run's journals line by line (`verdicts.jsonl` is ~4.8 GB at 1,000,000
 * trajectories) and keep little of each line, so what grows is garbage V8 leaves between its own collections
 * (issue 26 point 3). At V8's own dynamic factor a 1M `agree --reference` peaked at 697,972 KB (682 MiB) with a few
 * tens of MB live; with the factor `label` sets (50%) at 470,704 KB (460 MiB), user CPU 54.2 s against 50.0 s
 * (README-bench.md "Session 41", one run each at load 5-6). So every command sets it, not `label` only; `report` a lower
 * one ({@link REPORT_HEAP_GROWING_PERCENT}).
 * @param command the command's name (`agree`, `compare`, ...): commands outside {@link HEAP_TUNED_COMMANDS} keep
 *   V8's default. @param env as {@link tuneHeapForLabel} (`IPI_HEAP_GROWING_PERCENT`).
 * @returns the percent set, or undefined when nothing was set.
 */
export function tuneHeapForCommand(command: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  return HEAP_TUNED_COMMANDS.has(command) ? tuneHeapForLabel(env, command === "report" ? REPORT_HEAP_GROWING_PERCENT : LABEL_HEAP_GROWING_PERCENT) : undefined;
}

/**
 * `report`'s factor, percent (issue 26 point 3): its ASR-by-condition step at 1M was an old-generation sawtooth
 * (405 -> 463 MiB between V8's full collections at 50%); at 30% its top was 446 MiB, the run's user CPU unchanged
 * (192.7 s against 196.2 s, one run each at load 15-27: /work/s43/report43-bench.md). `IPI_HEAP_GROWING_PERCENT`
 * overrides it as for every command. Lower is no lever left (session 48): `report --where attacked=true --human F`
 * at 1M peaked at 477,148 KB with 10% against 478,876 KB with 30% (466,028 KB with 20%; one run each, the run-to-run
 * spread of this command ~11 MB), so its peak is no longer the old generation's growth between collections.
 */
export const REPORT_HEAP_GROWING_PERCENT = 30;

/** The commands that read a run's journals (every command of the CLI): {@link tuneHeapForCommand}. */
export const HEAP_TUNED_COMMANDS: ReadonlySet<string> = new Set(["label", "agree", "sample", "import-annotations", "compare", "report", "committee", "agreement", "estimate", "view"]);
