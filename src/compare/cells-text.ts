/**
 * The like-for-like block of `compare`'s text (./cells.ts): what each figure was trimmed to, per agent model (the
 * cells common to its own conditions) and pooled (the cells every condition covers), each count naming what it
 * belongs to.
 */
import { fieldNoun, groupsNoun, sharedNoneText, type CellCheck, type ModelCells } from "./cells.js";
import { quoted } from "../format/quote-name.js";

/** The per-model figures, in words (./cells.ts `PER_MODEL_FIGURES`). */
const PER_MODEL_WORDS = "its attack-success rates and utility under attack per {one}, its worst {one} and its leave-one-suite-out folds";
/**
 * What of a model's own figures is NOT over its cells (./cells.ts `NOT_ON_CELLS_FIGURES`): red team 29, the header said
 * "rates and utility" over its common cells beside a utility without attack over suites its attacked rows lacked.
 */
const NOT_ON_CELLS_WORDS =
  "NOT its utility without attack nor its injection-task runs: an unattacked run has no injection task, so no cell; they are over all its unattacked runs under each {one}, whatever suites and user tasks (a warning names the suites when they differ from its attacked ones)";
/** The pooled figures, in words (./cells.ts `POOLED_FIGURES`). */
const POOLED_WORDS = "the figures that set models side by side (the safety-ordering reversals, the model x {one} interaction test)";

/** `POOLED_WORDS` for a compared field (`condition`, `attack`, ...). */
export function pooledFiguresText(field: string): string {
  return POOLED_WORDS.replace("{one}", fieldNoun(field));
}

const top = (m: Record<string, number>) =>
  Object.entries(m)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

/** One model's line of the per-model block. */
function modelLine(model: string, pm: ModelCells, field: string): string {
  const conds = `${pm.conditions.length} ${fieldNoun(field, pm.conditions.length)} (${pm.conditions.join(", ")})`;
  // --common-tasks cuts after this check: what its rows are over, said on its own line (red team 29)
  const ct = pm.common_tasks;
  const then = ct
    ? ct.kept === pm.kept
      ? `; --common-tasks kept all of them: its rows are over these`
      : `; then --common-tasks kept ${ct.kept} of them (${ct.cells} cells), on the tasks every model ran: its rows are over those`
    : "";
  if (!pm.contrast) return `  ${model}: ${conds}: no contrast between ${groupsNoun(field)}, so all its ${pm.of} attacked trajectories (${pm.common_cells} cells) are kept${then}`;
  if (!pm.applied) return `  ${model}: ${conds} share ${sharedNoneText([], pm.conditions.length, pm.pairwise_common)}: NOT LIKE FOR LIKE, all its ${pm.of} attacked trajectories kept (see the warning)${then}`;
  const d = Object.entries(pm.dropped);
  const what = d.length
    ? `dropped (labelled or not), in cells another ${fieldNoun(field)} of its own lacks: ${d.map(([c, x]) => `${c} ${x.trajectories} of its ${x.of} attacked trajectories (${x.cells} cells)`).join(", ")}; kept ${pm.kept} of ${pm.of}`
    : `nothing dropped (${pm.kept} attacked trajectories)`;
  return `  ${model}: ${conds}, ${pm.common_cells} cells common to them; ${what}${then}`;
}

/** The pooled block: what each condition lost to the cells every condition covers (empty when not applied). */
function pooledLines(c: CellCheck, field: string): string[] {
  const lines: string[] = [];
  const entries = Object.entries(c.cells_dropped);
  if (!c.applied) {
    if (c.reason && Object.keys(c.per_model).length)
      lines.push(`like-for-like, pooled: ${c.reason}: ${pooledFiguresText(field)} are over each model's own cells above (see the warning)`);
    return lines;
  }
  lines.push(
    `like-for-like, pooled: ${pooledFiguresText(field)} compare the ${groupsNoun(field)} on the ${c.common_cells} (${c.cell_fields.join(", ")}) cells they all cover, ` +
      `then per model those it has under each ${fieldNoun(field)} of its own (--all-cells keeps everything); dropped from them, per ${field}:`,
  );
  // one block per condition, each count naming what it belongs to: the by-attack/by-suite breakdown is the
  // condition's, not the last model's listed before it (review, session 11)
  for (const [cond, d] of entries) {
    lines.push(`  ${field} ${cond}: ${d.trajectories} attacked trajectories dropped (labelled or not)`);
    if (d.cells) lines.push(`    ${d.cells} cells of ${cond} that some other ${field} lacks`);
    for (const [m, x] of Object.entries(d.per_model))
      lines.push(`    agent model ${m}: ${x.trajectories} trajectories in ${x.cells} cells that ${m} lacks under another ${field} of its own`);
    lines.push(`    the ${d.trajectories} dropped from ${cond}, by attack: ${top(d.by_attack)}; by suite: ${top(d.by_suite)}`);
    // the models whose share of these figures the drop changes, each with what it ran (newuser16)
    const bm = Object.entries(d.by_model ?? {}).sort(([a, x], [b, y]) => y.dropped - x.dropped || a.localeCompare(b));
    if (bm.length)
      lines.push(`    by agent model (left out of these figures only): ${bm.map(([m, x]) => `${m} ${x.dropped} of its ${x.of} (these figures over ${x.of - x.dropped})`).join(", ")}`);
  }
  return lines;
}

/**
 * Text lines naming what each figure was trimmed to (empty when the check was not made or with `--all-cells`): per
 * agent model, the cells common to its own conditions and what each of its conditions lost (a model with one
 * condition keeps everything and has no contrast); pooled, what each condition lost to the cells every condition
 * covers. One line when nothing was dropped anywhere. `field` is the compared field (`compare --by`).
 */
export function formatCellsDropped(c: CellCheck, field = "condition"): string[] {
  if (c.mode === "all") return [];
  const models = Object.entries(c.per_model ?? {});
  if (!c.applied && models.length === 0) return [];
  const single = models.filter(([, pm]) => !pm.contrast).map(([m]) => m);
  const ownDropped = models.some(([, pm]) => Object.keys(pm.dropped).length > 0 || !pm.applied);
  // one condition in the whole comparison: no contrast at all; the rows compare models, which this check does not trim
  // (out50: "every condition covers the same cells ... one condition only" read as a contrast made, beside a warning
  // that the models ran different task sets)
  const only = new Set(models.flatMap(([, pm]) => pm.conditions));
  if (c.applied && Object.keys(c.cells_dropped).length === 0 && !ownDropped && models.length > 0 && single.length === models.length && only.size === 1) {
    return [
      `like-for-like: the compared runs hold one ${field} (${quoted([...only][0])}), so there is no contrast between ${groupsNoun(field)} to make like for like and nothing is dropped: ` +
        `each agent model's figures are over all its attacked trajectories; the rows below compare the agent models with each other, which this check does not trim (a WARNING says when they ran different tasks; --common-tasks keeps the tasks every model ran)`,
    ];
  }
  if (c.applied && Object.keys(c.cells_dropped).length === 0 && !ownDropped) {
    // models whose own conditions cover fewer cells than the pooled count are named with theirs (newuser54 #5: "every
    // condition covers the same 144 cells" where Llama's conditions covered 97)
    const own = models.filter(([, pm]) => pm.contrast);
    const differ = own.some(([, pm]) => pm.common_cells !== c.common_cells);
    const cover = differ
      ? `each agent model's ${groupsNoun(field)} cover the same (${c.cell_fields.join(", ")}) cells (${own.map(([m, pm]) => `${m} ${pm.common_cells}`).join(", ")}), and every ${field} the same ${c.common_cells} pooled over the models`
      : `every ${field} covers the same ${c.common_cells} (${c.cell_fields.join(", ")}) cells`;
    return [`like-for-like: ${cover}; nothing dropped` + (single.length ? `; one ${field} only, so no contrast between ${groupsNoun(field)}: ${single.join(", ")}` : "")];
  }
  const lines = models.length
    ? [
        `like-for-like, per agent model: ${PER_MODEL_WORDS.replace(/\{one\}/g, fieldNoun(field))} are over the (${c.cell_fields.join(", ")}) cells common to its own ${groupsNoun(field)} (--all-cells keeps everything); ${NOT_ON_CELLS_WORDS.replace(/\{one\}/g, fieldNoun(field))}:`,
        ...models.map(([m, pm]) => modelLine(m, pm, field)),
      ]
    : [];
  lines.push(...pooledLines(c, field));
  const anyStep2 = Object.values(c.cells_dropped).some((d) => Object.keys(d.per_model).length > 0);
  lines.push(
    `  (in --json: each model's own cells in cells.per_model.<model>, its dropped ones in .dropped.<${field}>.list` +
      (c.applied
        ? `; the pooled figures' dropped cells in cells.cells_dropped.<${field}>.list, the counts per model in .by_model` + (anyStep2 ? `, each model's own in .per_model.<model>.list)` : `)`)
        : `)`),
  );
  return lines;
}
