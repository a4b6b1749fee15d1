/**
 * Is the run, as it is now, the population the human sample was drawn from? The label file records the sample's
 * frame (`sample_frame`: ../store/sample-frame.ts; older files only the `sample --where` filter and N, or nothing);
 * this module checks the run against it and says, once, what is known. Any doubt refuses the figures that rest on
 * the sample's design weights with a named status (`estimate`: every group's human and calibrated figures, the
 * judge's stay; `agree --human`: the design-weighted agreement, the unweighted agreement over the labelled
 * trajectories stays), the words of each consumer given by {@link FrameWords}:
 * - `sample_frame_malformed`: a row's `sample_where` / `sample_frame` cannot be read (file, line and field named);
 * - `several_sample_designs`: rows of different samples (designs) in one file: no single design covers the run;
 * - `population_changed_since_sample`: the frame's trajectories differ from the run's now (N then and now);
 * - `sample_of_another_run`: the same, and not one labelled trajectory is in the run: the sample was drawn from
 *   another run (named when the sample's `design.json` or `manifest.jsonl` beside the label file records it), said
 *   plainly rather than as a changed population (new-user report 17);
 * - `sample_frame_unknown`: nothing recorded, and the strata do not add up to the run.
 * - `item_stratum_mismatch`: a labelled trajectory's rows name another sampling stratum than the run gives it (a
 *   manifest edited by hand: ./stratum-check.ts).
 * A frame that matches adds nothing to the output. One function for every consumer (estimate, agree --human, the
 * report through both), so the checks cannot drift apart.
 */
import type { TrajectoryIndexRow } from "../store/run-store.js";
import type { HumanLabelFile, HumanLabelRead } from "./human-file.js";
import { frameDigest } from "../store/sample-frame.js";
import { samplePopulation, type SamplePopulation } from "./sample-population.js";
import { misplacedItems, misplacedWarning } from "./stratum-check.js";
import fs from "node:fs";
import path from "node:path";

/**
 * The run a sample was drawn from, as the sample's own files beside the label file record it (`sample --out DIR`
 * writes `design.json` and `manifest.jsonl`, whose first line names the run; import-annotations is usually pointed
 * at DIR/human.jsonl); null when neither is there or readable.
 */
export function sampleRunBeside(humanFile: string): { run: string; file: string } | null {
  const dir = path.dirname(humanFile);
  for (const name of ["design.json", "manifest.jsonl"]) {
    const file = path.join(dir, name);
    try {
      const text = fs.readFileSync(file, "utf8");
      const head = name === "design.json" ? JSON.parse(text) : JSON.parse(text.slice(0, text.indexOf("\n") >= 0 ? text.indexOf("\n") : undefined));
      if (head && typeof head.run === "string" && head.run) return { run: head.run, file };
    } catch {
      // not there, or not a sample's file: the run is not named
    }
  }
  return null;
}

/** The trajectories in sampling strata the label file has no cell of: how many, how many attacked, and the strata. */
export interface UncoveredRows {
  n: number;
  attacked: number;
  /** The sampling-stratum keys, sorted. */
  strata: string[];
}

/** How a consumer names what a refusal takes away, in the warnings of this module. */
export interface FrameWords {
  /** What is refused, with the status: the clause after "so" (`no group gets ... (undefined: STATUS)`). */
  refused: (status: string) => string;
  /** What becomes of trajectories in strata with no labelled item in the figures (`no human label speaks for them: ...`). */
  unrepresented: string;
  /** The verb of the advice (`estimate` each sample's file on its own, `estimate` a copy of the run as it was). */
  verb: string;
}

/** `estimate`'s words (and the report's paper table). */
export const ESTIMATE_FRAME_WORDS: FrameWords = {
  refused: (status) => `no group gets a human or calibrated estimate (undefined: ${status})`,
  // stats55 finding 4: "do not represent them" was half of it; the calibrated figure does count them, with an imputed correction
  unrepresented:
    "no human label speaks for them: the human-only estimate is a rate over the labelled cells alone, and the calibrated one counts them by the judge's verdicts plus the labelled cells' weighted mean correction (human - judge), imputed to them",
  verb: "estimate",
};

/** `agree --human`'s words (and the report's agreement with the humans). */
export const AGREE_FRAME_WORDS: FrameWords = {
  refused: (status) =>
    `no judge gets a design-weighted agreement with the humans (undefined: ${status}); the unweighted agreement below still holds for the labelled trajectories themselves, not for the run`,
  unrepresented: "the design-weighted agreement does not represent them",
  verb: "use",
};

/** What is known of the sample's frame, and whether its figures are refused. */
export interface FrameCheck {
  /** How the frame is recorded: `exact` (ids digest), `filter` (an older file: the `--where` filter and N), `none`. */
  known: "exact" | "filter" | "none";
  /** The `sample --where` population, for the report (null without a filter, or when refused before it is read). */
  population: SamplePopulation | null;
  /** Whether a trajectory is in the frame (absent: the whole run). */
  inFrame?: (r: TrajectoryIndexRow) => boolean;
  /** `status (details)`: the reason every group's human and calibrated figures are undefined; absent when usable. */
  refusal?: string;
}

/** The design a row belongs to: its frame's design id, else its `--where` filter, else none recorded. */
function designKey(r: HumanLabelRead): string {
  if (r.sample_frame) return `design ${r.sample_frame.design}`;
  if (r.sample_where) return `a sample of --where ${r.sample_where.filter} (no design id recorded)`;
  return "rows recording no sample";
}

/** A design's words: its id or filter, its N, and which rows of the file carry it. */
function describeDesigns(rows: readonly HumanLabelRead[]): string[] {
  const by = new Map<string, { rows: number; first: number; r: HumanLabelRead }>();
  for (const r of rows) {
    const k = designKey(r);
    const d = by.get(k);
    if (d) d.rows++;
    else by.set(k, { rows: 1, first: r.line, r });
  }
  return [...by].map(([k, d]) => {
    const pop = d.r.sample_where ? `--where ${d.r.sample_where.filter}` : d.r.sample_frame ? "the whole run" : "population unknown";
    const N = d.r.sample_frame?.N ?? d.r.sample_where?.N;
    return `${k} (${pop}${N !== undefined ? `, N ${N}` : ""}; ${d.rows} row${d.rows === 1 ? "" : "s"} from line ${d.first})`;
  });
}

/**
 * Check the label file's sample frame against the run (module docstring); every finding is one warning.
 * @param file the human-label file read; @param humanFile its name, for messages.
 * @param rows every trajectory of the run (duplicate ids dropped, as `sample` drops them).
 * @param domain the attacked trajectories the estimate's groups are over.
 * @param warnings receives at most one warning per finding.
 * @param words how the warnings name what is refused (default: estimate's).
 * @param runName the run's name: when the sample folder beside the file names another run whose frame this run
 *   matches exactly, a note says so (an auditor reads which run the sample came from; new user 43).
 */
export function checkSampleFrame(
  file: HumanLabelFile,
  humanFile: string,
  rows: readonly TrajectoryIndexRow[],
  domain: readonly TrajectoryIndexRow[],
  warnings: string[],
  words: FrameWords = ESTIMATE_FRAME_WORDS,
  runName?: string,
): FrameCheck {
  const bad = file.rows.filter((r) => r.frame_problem);
  if (bad.length) {
    const more = bad.length > 1 ? ` (and ${bad.length - 1} more row${bad.length > 2 ? "s" : ""})` : "";
    warnings.push(
      `label file ${humanFile} line ${bad[0].line}: ${bad[0].frame_problem}${more}: the population the sample was drawn from cannot be read, so ${words.refused("sample_frame_malformed")}; re-import the annotations with import-annotations`,
    );
    return { known: "none", population: null, refusal: `sample_frame_malformed (label file line ${bad[0].line}: ${bad[0].frame_problem})` };
  }
  const designs = describeDesigns(file.rows);
  if (designs.length > 1) {
    warnings.push(
      `label file ${humanFile} holds rows of ${designs.length} samples: ${designs.join("; ")}: their strata and weights belong to different populations and cannot be pooled, so ${words.refused("several_sample_designs")}; ${words.verb} each sample's label file on its own`,
    );
    return { known: "none", population: null, refusal: `several_sample_designs (${designs.length} samples in the label file)` };
  }
  const r0 = file.rows[0];
  const sf = r0?.sample_frame;
  const sw = r0?.sample_where;
  let population: SamplePopulation | null = null;
  let inFrame: FrameCheck["inFrame"];
  let frameRows = rows;
  // the filter's own warnings (attacked trajectories outside it) only matter when the frame is the run's now
  const spWarnings: string[] = [];
  if (sw) {
    const sp = samplePopulation(file, rows, domain, spWarnings, humanFile, words.refused("sample_frame_unknown"));
    if (!sp) {
      warnings.push(...spWarnings);
      return { known: "none", population: null, refusal: `sample_frame_unknown (the sample's --where ${sw.filter} names a field this version does not know)` };
    }
    ({ population, inFrame } = sp);
    frameRows = rows.filter(sp.inFrame);
  }
  const N = sf?.N ?? sw?.N;
  if (N === undefined) return { known: "none", population: null, ...misplacedRefusal(file, humanFile, rows, warnings, words) };
  const now = sf ? frameDigest(frameRows.map((r) => r.id)) : { N: frameRows.length, ids_sha256: undefined };
  if (now.N === N && (!sf || now.ids_sha256 === sf.ids_sha256)) {
    warnings.push(...spWarnings);
    const misplaced = misplacedRefusal(file, humanFile, frameRows, warnings, words);
    if (misplaced.refusal) return { known: sf ? "exact" : "filter", population, inFrame, ...misplaced };
    if (!sf) warnings.push(`label file ${humanFile} records the sample's --where ${sw!.filter} and its N (${N}) but not its exact frame (an earlier import-annotations): assumed to be the ${N} trajectories the filter keeps now`);
    const named = runName === undefined ? null : sampleRunBeside(humanFile);
    if (named && named.run !== runName)
      warnings.push(
        `the sample of ${humanFile} was drawn from run ${named.run} (as ${named.file} records), not from run ${runName}; this run holds the same ${N} trajectories${sf ? " (the frame's digest of their ids matches)" : " the sample's filter keeps"}, so its weights apply here`,
      );
    return { known: sf ? "exact" : "filter", population, inFrame };
  }
  const inRun = new Set(rows.map((r) => r.id));
  const labelled = new Set(file.rows.map((r) => r.trajectory_id));
  if (labelled.size && ![...labelled].some((id) => inRun.has(id))) {
    const named = sampleRunBeside(humanFile);
    const from = named ? `run ${named.run} (as ${named.file} records)` : "another run";
    warnings.push(
      `none of the ${labelled.size} labelled trajectories of ${humanFile} is in this run: the sample was drawn from ${from}, not from this one, so ${words.refused("sample_of_another_run")}; ` +
        `${words.verb} the labels with the run they were sampled from${named ? ` (--run ${named.run})` : ""}`,
    );
    return { known: "none", population: null, refusal: `sample_of_another_run (${named ? `drawn from run ${named.run}` : "no labelled trajectory is in this run"})` };
  }
  const inNow = new Set(frameRows.map((r) => r.id));
  const gone = new Set(file.rows.filter((r) => !inNow.has(r.trajectory_id)).map((r) => r.trajectory_id)).size;
  const pop = sw ? `the trajectories --where ${sw.filter} keeps` : "the run's trajectories";
  const delta = now.N === N ? "the same number, other trajectories" : `${Math.abs(now.N - N)} ${now.N > N ? "more" : "fewer"}`;
  const counts = `N ${N} when the sample was drawn, ${now.N} now (${delta}${gone ? `; ${gone} labelled trajectories are no longer among them` : ""})`;
  warnings.push(
    `${pop} changed since the sample was drawn: ${counts}; the sample's weights are for the population as it was, so ${words.refused("population_changed_since_sample")}; ` +
      `which trajectories changed is not recorded (the frame is kept as a digest): ${words.verb} a copy of the run as it was when sampled, or draw a new sample`,
  );
  return { known: sf ? "exact" : "filter", population, refusal: `population_changed_since_sample (${counts})` };
}

/**
 * The refusal when a labelled trajectory's rows name another sampling stratum than the run gives it
 * (./stratum-check.ts, break48: a manifest edited by hand), said in one warning; `{}` when every one is where its rows say.
 */
function misplacedRefusal(file: HumanLabelFile, humanFile: string, rows: readonly TrajectoryIndexRow[], warnings: string[], words: FrameWords): { refusal?: string } {
  const m = misplacedItems(file.rows, rows);
  if (m.length === 0) return {};
  warnings.push(misplacedWarning(m, humanFile, words.refused("item_stratum_mismatch")));
  const more = m.length > 1 ? `; and ${m.length - 1} more` : "";
  return { refusal: `item_stratum_mismatch (label file line ${m[0].line}: trajectory ${m[0].trajectory_id} is in ${m[0].run_stratum}, its row says ${m[0].stratum}${more})` };
}

/** Up to three sampling-stratum names of `uncovered`, then how many, or "". */
function strataNames(uncovered: UncoveredRows): string {
  return uncovered.strata.length <= 3 ? uncovered.strata.join("; ") : `${uncovered.strata.slice(0, 3).join("; ")}; ... (${uncovered.strata.length} strata)`;
}

const UNATTACKED_TAIL = "all unattacked runs, which no ASR figure counts, so no estimate below is affected";

/**
 * The words for trajectories in strata with no labelled item when every one of them is unattacked (`uncovered`
 * explains all `missing` and none is attacked): they are in no ASR figure, so no estimate is affected. Else null.
 */
function unattackedOnly(uncovered: UncoveredRows | null | undefined, missing: number, head: string): string | null {
  if (!uncovered || uncovered.n !== missing || uncovered.attacked > 0) return null;
  return `${head} (${strataNames(uncovered)}): ${UNATTACKED_TAIL}`;
}

/**
 * What the file's strata cover of the population and why not all (new-user report 31, item 7: "the strata of the
 * label file hold 698 trajectories, the 702 trajectories of the run ..." read as a contradiction). A label row's
 * stratum is a design cell (committee stratum A/D/U x sampling stratum) with its size; a cell with no labelled item
 * is not in the file (phase 2 drew nothing from a small disagreement cell, or its items are unlabelled), so the
 * file's cells add up to fewer trajectories than the population. Names the sampling strata with no cell at all.
 */
function coverHead(covered: number, of: string, missing: number, uncovered: UncoveredRows | null | undefined): string {
  const whole = uncovered && uncovered.n > 0 ? ` (${uncovered.n === missing ? "all" : uncovered.n} in sampling strata with none: ${strataNames(uncovered)})` : "";
  return (
    `the label file's strata (design cells: committee stratum x sampling stratum, each with a labelled item) cover ${covered} of ${of}: ` +
    `the other ${missing} are in cells with no labelled item (none drawn there, e.g. a disagreement cell phase 2 drew nothing from; none labelled; or no labelled item with a consensus, e.g. annotators tied on each)${whole}`
  );
}

/**
 * A coverage warning of {@link checkStrataTotal} cut into its fact and what the fact means for the figures, so that
 * two commands' warnings of one fact can be said once (the report: ../report/coverage-once.ts).
 * @returns `head` (the fact, up to the last colon before the consequence), `tail` (the consequence: which figures
 *   do not represent the trajectories, or that none is affected), `key` (`covered`, population and `missing`: equal
 *   keys are the same fact); null for any other warning.
 */
export function coverageParts(w: string): { head: string; tail: string; key: string } | null {
  const m = /^the label file's strata \(design cells: [^)]*\) cover (\d+) of (.*?): the other (\d+) are in cells with no labelled item/.exec(w);
  if (!m) return null;
  const tail = [ESTIMATE_FRAME_WORDS.unrepresented, AGREE_FRAME_WORDS.unrepresented, UNATTACKED_TAIL].find((t) => w.endsWith(`: ${t}`));
  if (!tail) return null;
  return { head: w.slice(0, w.length - tail.length - 2), tail, key: `${m[1]} of ${m[2]}: ${m[3]}` };
}

/**
 * The check of the strata's total size against the frame (`covered`: Σ stratum_size of the label file's strata).
 * With a known frame, the warnings of earlier versions (strata with no labelled item; strata larger than the frame).
 * With none recorded: strata that add up to the run are assumed to be a sample of the whole run as it is now (said
 * once); otherwise which population they are is unknown and the figures are refused (`sample_frame_unknown`).
 * @param uncovered the frame's trajectories in no stratum of the file (./design-cells.ts), asked for only when the
 *   strata hold fewer than the frame: when they are all unattacked the warning says no estimate is affected.
 * @param words how the warnings name what is refused (default: estimate's).
 * @returns the refusal (`status (details)`), or undefined.
 */
export function checkStrataTotal(
  check: FrameCheck,
  covered: number,
  populationSize: number,
  attackedCount: number,
  humanFile: string,
  warnings: string[],
  uncovered?: () => UncoveredRows | null,
  words: FrameWords = ESTIMATE_FRAME_WORDS,
): string | undefined {
  const sp = check.population;
  if (sp) {
    if (covered === sp.N_run) return undefined;
    const pop = `the ${sp.N_run} trajectories of the run the sample's --where ${sp.filter} keeps`;
    if (covered > sp.N_run) return strataExceed(covered, pop, sp.N_run, humanFile, warnings, words);
    const u = uncovered?.();
    warnings.push(unattackedOnly(u, sp.N_run - covered, coverHead(covered, pop, sp.N_run - covered, null)) ?? `${coverHead(covered, pop, sp.N_run - covered, u)}: ${words.unrepresented}`);
    return undefined;
  }
  if (covered === populationSize) {
    if (check.known === "none")
      warnings.push(`label file ${humanFile} does not record the population its sample was drawn from (an earlier import-annotations, or a file made by hand): its strata hold the run's ${populationSize} trajectories, so it is taken to be a sample of the whole run as it is now`);
    return undefined;
  }
  if (check.known === "exact") {
    const of = `the run's ${populationSize} trajectories`;
    if (covered > populationSize) return strataExceed(covered, of, populationSize, humanFile, warnings, words);
    const u = uncovered?.();
    warnings.push(unattackedOnly(u, populationSize - covered, coverHead(covered, of, populationSize - covered, null)) ?? `${coverHead(covered, of, populationSize - covered, u)}: ${words.unrepresented}`);
    return undefined;
  }
  const attackedHint =
    covered === attackedCount ? ` (as many as its attacked ones: a sample of attacked runs only, e.g. sample --where attack=..., would give this)` : "";
  warnings.push(
    `label file ${humanFile} does not record the population its sample was drawn from (an earlier import-annotations, or a file made by hand), and its strata hold ${covered} trajectories, the run ${populationSize}${attackedHint}: ` +
      `which trajectories they are is unknown, so ${words.refused("sample_frame_unknown")}; re-import the annotations with this version's import-annotations and the sample's manifest, which record it`,
  );
  return `sample_frame_unknown (the label file's strata hold ${covered} trajectories, the run ${populationSize}; the sample's population is not recorded)`;
}

/** The status of figures refused because the label file's strata add up to more trajectories than the population. */
export const STRATA_EXCEED_POPULATION = "strata_exceed_population";

/**
 * The refusal when the label file's strata (Σ stratum_size) hold more trajectories than the population they are
 * strata of (break50 finding 3: a hand-edited, moved file gave a human 76.9% over 1,971 trajectories printed under
 * `N 414`): no design has strata larger than its population, so the post-stratified weights N_h/n_h are of no
 * population, and every figure resting on them is undefined, as for a changed population.
 * @returns `strata_exceed_population (...)`, the warning said once in `warnings`.
 */
function strataExceed(covered: number, pop: string, N: number, humanFile: string, warnings: string[], words: FrameWords): string {
  warnings.push(
    `the strata of label file ${humanFile} hold ${covered} trajectories (the sum of their stratum_size), more than ${pop}: strata larger than their population are no valid design ` +
      `(the file was edited by hand, or its strata are another run's), so ${words.refused(STRATA_EXCEED_POPULATION)}; ${words.verb} the label file import-annotations wrote from the sample's manifest`,
  );
  return `${STRATA_EXCEED_POPULATION} (the label file's strata hold ${covered} trajectories, the population ${N})`;
}
