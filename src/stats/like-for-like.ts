/**
 * Like for like: rates shown side by side compare what the groups did only when the groups were measured on the same
 * things. One check for every output that puts per-model or per-(model, condition) rates next to each other (the
 * `label` summary, `report`, `estimate --table`), so each says the same words wherever it shows the rates:
 *
 * - one model's conditions (defenses) run on different attacks, suites or (suite, user task, injection task, attack)
 *   cells (issue 22): a baseline over 15 attacks beside a defense run on one reads as if the defense did nothing;
 * - different models under one condition run on different attacks, suites or cells (like13): gpt-4o's rate over 15
 *   attacks beside Claude's over 1, or a model measured on workspace and slack beside one measured on banking only
 *   (the suite also tells benchmarks apart: AgentDojo's and AgentDyn's suites have different names);
 * - model names that differ only in case, whitespace or Unicode form (`meta-llama_Llama-3.3-70B-Instruct` in AgentDojo,
 *   `meta-llama_llama-3.3-70b-instruct` in AgentDyn): kept apart, never pooled silently (they can be one model run
 *   on two benchmarks, whose pooled rate would mix them), and said, naming every spelling.
 *
 * Sets are compared, not counts: a group that ran every attack of another on more tasks is told apart by its cells.
 */
import { NO_VALUE } from "./no-value.js";
import { cellKey } from "./cell-key.js";

/**
 * The name a caller gives the models pooled into one group (`estimate --by condition`: every agent model's runs under
 * a condition). Not a name from the run files, so it is printed as it is, never quoted ({@link shownName}).
 */
export const ALL_MODELS = "all agent models";

/**
 * A model or condition name in a warning: quoted (`"gpt-4o"`), as the table's notes write them, so where a name with
 * spaces or punctuation starts and ends is plain (session 52); {@link ALL_MODELS} and the missing value `(none)` are
 * not names from the run, and stay bare.
 */
function shownName(name: string): string {
  return name === ALL_MODELS || name === NO_VALUE ? name : JSON.stringify(name); // `quoted` of ../format/quote-name.ts (a layer above)
}

/** One attacked trajectory as {@link likeForLikeWarnings} reads it (task ids only where the caller has them). */
export interface LikeForLikeItem {
  model?: string;
  condition?: string;
  attack?: string;
  suite?: string;
  user_task_id?: string;
  injection_task_id?: string;
}

/** Words every warning about one model's conditions holds. */
export const ATTACK_MIX_MARK = "per-condition rates are not like for like";
/** Words every warning about different models under one condition holds. */
export const MODEL_MIX_MARK = "per-model rates are not like for like";
/** The two marks above in the utility-without-attack column's words (./utility-like-for-like.ts `unattackedWording`). */
export const UNATTACKED_MIX_MARKS = { model: "per-model utility figures (over unattacked runs) are not like for like", attack: "per-condition utility figures (over unattacked runs) are not like for like" } as const;
/** The marks of {@link MODEL_MIX_MARK} and {@link ATTACK_MIX_MARK} reworded for the utility-under-attack column (fix50b). */
export const UNDER_ATTACK_MIX_MARKS = { model: "per-model utility figures (under attack) are not like for like", attack: "per-condition utility figures (under attack) are not like for like" } as const;
/**
 * Words every warning about model names that are one name once spelled alike holds (what differs is named before it:
 * case, whitespace, Unicode composition, full-width or other compatibility forms; {@link spellingDifferences}).
 */
export const MODEL_SPELLING_MARK = "they are kept apart, one rate each";

/**
 * Words every warning about groups shown side by side whose rates pool different agent models (or suites) holds:
 * `estimate --by condition` with a defense run on gpt-4o only beside one pooled over five models (new user 33).
 */
export const GROUP_MIX_MARK = "rates side by side are not like for like";

/** Words every warning about per-model rates pooled over different sets of conditions holds ({@link pooledConditionWarnings}). */
export const POOLED_MIX_MARK = "pooled per-model rates are not like for like";

/**
 * One warning when models' pooled rates (each over all its conditions) sit side by side over different sets of
 * conditions: e.g. gpt-4o pooled over three defenses beside Llama over one (red team 13: the label summary's
 * "per agent model (pooled)" rows said which conditions each pooled, but not that the rows are therefore unlike).
 * @param conditionsByModel each model's conditions (attacked runs); models with none are left out.
 * @param unattackedRuns each model's runs that are not attacked, by condition: a condition under which a model has
 *   runs but none attacked is in no set above, and is said after them (`gpt-5-mini under tool_filter: 4 runs, none
 *   attacked`, as compare says it; new user 48, 11: AgentDyn's gpt-5-mini tool_filter was left out without a word).
 * @returns [] when fewer than two models have conditions or all have the same set; else one warning holding
 *   {@link POOLED_MIX_MARK}, naming each model's conditions.
 */
export function pooledConditionWarnings(conditionsByModel: Map<string, Set<string>>, unattackedRuns?: ReadonlyMap<string, ReadonlyMap<string, number>>): string[] {
  const mix = conditionMixOf(conditionsByModel);
  if (!mix) return [];
  return [
    `agent models were run under different conditions (${mix.sets}), so their ${POOLED_MIX_MARK}: compare them per condition (the rows per model and condition)` +
      (mix.shared.length > 0 ? `, or narrow with --where condition=${mix.shared.join(",")}` : " (no condition is shared by every model)") +
      unattackedOnlyText(conditionsByModel, unattackedRuns),
  ];
}

/** `; not in these sets (runs, but none attacked: no rate there): m under c: 4 runs, none attacked`, or "" when none. */
function unattackedOnlyText(conditionsByModel: Map<string, Set<string>>, unattackedRuns?: ReadonlyMap<string, ReadonlyMap<string, number>>): string {
  const byName = <T>(m: Iterable<[string, T]>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const parts: string[] = [];
  for (const [model, byCondition] of byName(unattackedRuns ?? [])) {
    const attacked = conditionsByModel.get(model);
    for (const [condition, n] of byName(byCondition)) if (!attacked?.has(condition)) parts.push(`${shownName(model)} under ${shownName(condition)}: ${n} run${n === 1 ? "" : "s"}, none attacked`);
  }
  return parts.length ? `; not in these sets (runs, but none attacked: no rate there): ${parts.join("; ")}` : "";
}

/**
 * Whether models (each figure pooled over its conditions) ran different sets of conditions: the one test behind
 * {@link pooledConditionWarnings} (label's summary) and `estimate --by agent_model` (`../estimate/like-for-like.ts`).
 * @param conditionsByModel each model's conditions; models with none are left out.
 * @returns null when fewer than two models have conditions or all have the same set; else `sets` ("model: c1, c2;
 *   ..." by model name) and the conditions every model ran (`shared`, sorted).
 */
export function conditionMixOf(conditionsByModel: Map<string, Set<string>>): { sets: string; shared: string[] } | null {
  const models = [...conditionsByModel].filter(([, c]) => c.size > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (models.length < 2) return null;
  const key = (c: Set<string>) => [...c].sort().join("\u0000");
  if (models.every(([, c]) => key(c) === key(models[0][1]))) return null;
  return {
    sets: models.map(([m, c]) => `${shownName(m)}: ${[...c].sort().map(shownName).join(", ")}`).join("; "),
    shared: [...models[0][1]].filter((c) => models.every(([, cs]) => cs.has(c))).sort(),
  };
}

/** True for a warning {@link likeForLikeWarnings} wrote: how outputs find them among other warnings, to show them with the rates. */
export function isLikeForLikeWarning(w: string): boolean {
  return w.includes(ATTACK_MIX_MARK) || w.includes(MODEL_MIX_MARK) || [...Object.values(UNATTACKED_MIX_MARKS), ...Object.values(UNDER_ATTACK_MIX_MARKS)].some((m) => w.includes(m)) || w.includes(MODEL_SPELLING_MARK) || w.includes(POOLED_MIX_MARK) || w.includes(GROUP_MIX_MARK);
}

/** What one group (a model's condition, or a model under a condition) was measured on; `cells` null when some item has no task ids. */
interface Group {
  attacks: Set<string>;
  suites: Set<string>;
  cells: Set<string> | null;
}

const NONE = NO_VALUE;
const byName = <T>(m: Map<string, T>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
const shared = (groups: Array<[string, Group]>, pick: (g: Group) => Set<string>) =>
  [...pick(groups[0][1])].filter((a) => groups.every(([, g]) => pick(g).has(a))).sort();
function list(s: Set<string>, what: string): string {
  const a = [...s].sort();
  return a.length <= 4 ? a.join(", ") : `${a.length} ${what} (${a.slice(0, 3).join(", ")}, ...)`;
}

function add(groups: Map<string, Group>, name: string, it: LikeForLikeItem): void {
  let g = groups.get(name);
  if (!g) groups.set(name, (g = { attacks: new Set(), suites: new Set(), cells: new Set() }));
  const attack = it.attack ?? NONE;
  const suite = it.suite ?? NONE;
  g.attacks.add(attack);
  g.suites.add(suite);
  const cell = cellKey(it, "condition"); // the cell compare pairs conditions on (./cell-key.ts)
  if (cell === undefined) g.cells = null;
  else g.cells?.add(cell);
}

/**
 * The advice beside a `--where <field>=<shared values>` narrowing, which removes that field's difference only: when
 * the groups' cells on the shared values are the same it is like for like (said as such); when they still differ the
 * advice says so with the cell counts and points to `hint.cells`; without task ids the cells are not known (said).
 * @param part the index of the field in a cell key (`suite, user task, injection task, attack`).
 */
function narrowing(groups: Array<[string, Group]>, field: "attack" | "suite", common: string[], part: number, hint: { narrow: string; cells: string }): string {
  const where = `--where ${field}=${common.join(",")}`;
  if (groups.some(([, g]) => g.cells === null)) return `narrow with ${where} to remove the ${field} difference only (their tasks are not compared here, so their (suite, user task, injection task, attack) cells may still differ after it: label's summary keeps no task ids, and other inputs may have none; estimate --table and report compare the cells where the ids are recorded), or ${hint.narrow}`;
  const keep = new Set(common);
  const kept = groups.map(([n, g]) => [n, new Set([...g.cells!].filter((k) => keep.has(k.split("\u0000")[part])))] as const);
  if (kept.every(([, c]) => same(c, kept[0][1]))) return `narrow with ${where} (on which they ran the same cells), or ${hint.narrow}`;
  const n = [...kept[0][1]].filter((k) => kept.every(([, c]) => c.has(k))).length;
  return (
    `${where} removes the ${field} difference only: on those ${field}s their (suite, user task, injection task, attack) cells still differ ` +
    `(${kept.map(([c, k]) => `${shownName(c)} ${k.size}`).join(", ")}; ${n} shared by all); ${hint.cells}`
  );
}

/**
 * How groups shown side by side differ, as the warning's middle, or null when they were measured on the same cells
 * (or cells cannot be compared: some item has no task ids). Attacks and suites are each named when they differ (both
 * when both do: a reader told "different attacks" of groups that ran one attack on different suites is misled);
 * otherwise the cells. The words right after `${who} ${ran} ` are one of {@link MIX_KINDS} ({@link mixKindOf} reads them).
 * @param who "its conditions" / "agent models under X"; @param mark the warning's mark; @param hint what to run
 *   instead: beside a `--where` (`narrow`), when nothing is shared (`none`), for cells (`cells`).
 */
function differs(who: string, groups: Array<[string, Group]>, mark: string, hint: { narrow: string; none: string; cells: string }, ran = "ran"): string | null {
  const first = groups[0][1];
  const attacksDiffer = !groups.every(([, g]) => same(g.attacks, first.attacks));
  const suitesDiffer = !groups.every(([, g]) => same(g.suites, first.suites));
  const attackList = groups.map(([n, g]) => `${shownName(n)}: ${list(g.attacks, "attacks")}`).join("; ");
  const suiteList = groups.map(([n, g]) => `${shownName(n)}: ${list(g.suites, "suites")}`).join("; ");
  const commonSuites = shared(groups, (g) => g.suites);
  const noSuite = noSuiteText(groups);
  if (attacksDiffer) {
    const common = shared(groups, (g) => g.attacks);
    const head = suitesDiffer
      ? `${who} ${ran} ${MIX_KINDS.both} (attacks ${attackList}; suites ${suiteList}), so ${mark}`
      : `${who} ${ran} ${MIX_KINDS.attacks} (${attackList}), so ${mark}`;
    const suites = !suitesDiffer ? "" : commonSuites.length ? `; the suites differ too: add --where suite=${commonSuites.join(",")}` : `; ${noSuite}`;
    return head + (common.length ? `; ${narrowing(groups, "attack", common, 3, hint)}` : `; they share no attack: ${hint.none}`) + suites;
  }
  if (suitesDiffer) {
    return (
      `${who} ${ran} ${MIX_KINDS.suites} (${suiteList}), so ${mark}` +
      (commonSuites.length ? `; ${narrowing(groups, "suite", commonSuites, 0, hint)}` : `; ${noSuite}`)
    );
  }
  if (groups.some(([, g]) => g.cells === null)) return null;
  if (groups.every(([, g]) => same(g.cells!, first.cells!))) return null;
  const n = [...first.cells!].filter((k) => groups.every(([, g]) => g.cells!.has(k))).length;
  return `${who} ${ran} ${MIX_KINDS.cells} (${groups.map(([c, g]) => `${shownName(c)} ${g.cells!.size}`).join(", ")}; ${n} shared by all), so ${mark}; ${hint.cells}`;
}

/**
 * The clause for groups with no suite common to all: `they share no suite ...` when no two share one, else which pairs
 * do (newuser54 #5: "they share no suite" of three models two of which shared travel, two slack).
 */
function noSuiteText(groups: Array<[string, Group]>): string {
  const pairs: string[] = [];
  for (let i = 0; i < groups.length; i++)
    for (let j = i + 1; j < groups.length; j++) {
      const both = [...groups[i][1].suites].filter((s) => groups[j][1].suites.has(s)).sort();
      if (both.length) pairs.push(`${shownName(groups[i][0])} and ${shownName(groups[j][0])}: ${both.join(", ")}`);
    }
  if (!pairs.length) return `they share no suite (different benchmarks or suites): their rates measure different tasks`;
  const shown = pairs.length > 6 ? [...pairs.slice(0, 6), `${pairs.length - 6} more pairs`] : pairs;
  return `no suite is common to all of them (some share one: ${shown.join("; ")}): their rates measure different tasks`;
}

/** What a like-for-like warning says differs, in its words (after "ran "): the one vocabulary {@link mixKindOf} reads. */
export const MIX_KINDS = {
  both: "different attacks and different suites",
  attacks: "different attacks",
  suites: "different suites",
  cells: "different (suite, user task, injection task, attack) cells",
} as const;

/**
 * What one model's conditions differ in, read from the per-condition warning {@link likeForLikeWarnings} wrote for
 * that model (label's summary keeps warnings as text in summary.json): how a line that points to the warning
 * ("they ran different suites: see above") names the real difference instead of assuming attacks (nu19).
 * @param warnings the warnings to search. @param model the model, as the warning names it.
 * @returns the difference's words (a value of {@link MIX_KINDS}), "different attacks, suites or tasks" when the
 *   warning's words are not recognised, or null when no per-condition warning names the model.
 */
export function conditionMixKindOf(warnings: readonly string[], model: string): string | null {
  // the name quoted (since session 52), or bare as a summary.json written before wrote it
  for (const prefix of [`${shownName(model)}: its conditions `, `${model}: its conditions `]) {
    const w = warnings.find((x) => x.startsWith(prefix) && x.includes(ATTACK_MIX_MARK));
    if (w !== undefined) return mixKindOf(w.slice(prefix.length)) ?? "different attacks, suites or tasks";
  }
  return null;
}

/** The first {@link MIX_KINDS} value in `rest` ("ran different suites (...": the verb can be several words), else null. */
function mixKindOf(rest: string): string | null {
  const found = Object.values(MIX_KINDS).map((k) => [k, rest.indexOf(` ${k} (`)] as const).filter(([, i]) => i >= 0);
  return found.length ? found.reduce((a, b) => (b[1] < a[1] ? b : a))[0] : null;
}

const COMPOSITION = "Unicode composition (NFC vs NFD: an accent as one code point or as a letter and a combining mark)";
const COMPATIBILITY = "compatibility forms (full-width letters and the like: NFKC)";
const ws = (s: string) => s.replace(/\s+/g, " ").trim();

/** `NFKC`, whitespace runs as one space, trimmed, lower case: two names equal so read as one model. */
function spellingKey(model: string): string {
  return ws(model.normalize("NFKC")).toLowerCase();
}

/**
 * What the names of one spelling set (one {@link spellingKey}) differ in, in this order: case, whitespace, Unicode
 * composition (one name holds a composed character, another a letter and a combining mark), compatibility forms
 * (NFC, case and whitespace alike do not make them one: full-width letters). Case and whitespace: each is named when
 * the other folds alone do not make the names one (`["case", "whitespace"]` for `"Ab"` and `" ab "`).
 */
export function spellingDifferences(names: Iterable<string>): string[] {
  const all = [...new Set(names)];
  const distinct = (f: (s: string) => string) => new Set(all.map(f)).size > 1;
  const out: string[] = [];
  if (distinct((s) => ws(s.normalize("NFKC")))) out.push("case");
  if (distinct((s) => s.normalize("NFKC").toLowerCase())) out.push("whitespace");
  const composed = all.filter((s) => s !== s.normalize("NFD"));
  const decomposed = all.filter((s) => s !== s.normalize("NFC"));
  if (composed.some((a) => decomposed.some((b) => a !== b))) out.push(COMPOSITION);
  if (distinct((s) => ws(s.normalize("NFC")).toLowerCase())) out.push(COMPATIBILITY);
  return out;
}

/** A name in a message: quoted, and, when it holds other than printable ASCII, its escapes too (NFC and NFD print alike). */
function shownSpelling(name: string): string {
  const q = JSON.stringify(name);
  if (!/[^\x20-\x7e]/.test(name)) return q;
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, "0");
  const esc = [...name].map((c) => (/[\x20-\x7e]/.test(c) ? c.replace(/["\\]/g, "\\$&") : c.codePointAt(0)! > 0xffff ? `\\u{${hex(c.codePointAt(0)!)}}` : `\\u${hex(c.codePointAt(0)!)}`)).join("");
  return `${q} (written "${esc}")`;
}

/** `a, b or c`. */
function orList(xs: readonly string[]): string {
  return xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`;
}

/**
 * Warnings for rates shown side by side that are not like for like (module docstring), in this order: one per agent
 * model whose conditions differ; one per condition whose models differ (named "under condition X" when the items hold
 * more than one condition); one per set of model names that differ only in case, whitespace or Unicode form (what
 * differs is named). Items without a model
 * are ignored; items without a condition are the condition `(none)` (compared with the model's other conditions, and
 * across models, named so only when the items hold another condition); without task ids, cells are not compared (attacks and suites are).
 * @param items the attacked trajectories the rates are over (one or more per trajectory: sets are compared).
 * @param words optional: the verb (`ran`, default) and, when given, the one hint that replaces every "what to run
 *   instead" (utility columns whose difference comes only from runs without a benchmark verdict: no command removes it).
 * @returns the warnings (empty when everything shown side by side was measured on the same cells).
 */
export function likeForLikeWarnings(items: Iterable<LikeForLikeItem>, words: { ran?: string; hint?: string } = {}): string[] {
  const groups = new LikeForLikeGroups();
  for (const it of items) groups.add(it);
  return groups.warnings(words);
}

/**
 * What {@link likeForLikeWarnings} compares, collected one item at a time: per model its conditions' and per
 * condition its models' attack, suite and cell sets (distinct values only). A caller with a million trajectories
 * adds each as it makes it, so no list of items is held (issue 26: `estimate --table` at 1,000,000 trajectories
 * held two lists of a million item objects here, ~190 MB of heap at its peak). The groups are read, never changed,
 * by {@link LikeForLikeGroups.warnings}, which may be called more than once (with other words).
 */
export class LikeForLikeGroups {
  private readonly perModel = new Map<string, Map<string, Group>>();
  private readonly perCondition = new Map<string, Map<string, Group>>();

  /** Count one item (as {@link likeForLikeWarnings}: an item without a model is ignored). */
  add(it: LikeForLikeItem): void {
    if (it.model === undefined) return;
    // a run without a condition is the condition (none), compared with the model's others (new user 35)
    const c = it.condition ?? NONE;
    let m = this.perModel.get(it.model);
    if (!m) this.perModel.set(it.model, (m = new Map()));
    add(m, c, it);
    let byModel = this.perCondition.get(c);
    if (!byModel) this.perCondition.set(c, (byModel = new Map()));
    add(byModel, it.model, it);
  }

  /** The warnings of the items added so far ({@link likeForLikeWarnings}: same words, same order). */
  warnings(words: { ran?: string; hint?: string } = {}): string[] {
    return warningsOf(this.perModel, this.perCondition, words);
  }

  /** The groups the warnings name ({@link UnlikeGroups}): what a per-row flag (a CSV column) reads. */
  unlike(): UnlikeGroups {
    const tags: UnlikeGroups = { models: new Map(), conditions: new Map(), spellings: new Set() };
    warningsOf(this.perModel, this.perCondition, {}, tags);
    return tags;
  }
}

/**
 * Which groups {@link likeForLikeWarnings} warns about: each model whose conditions differ and each condition
 * (`(none)` for items without one) whose models differ, with what differs (a {@link MIX_KINDS} value, or "different
 * attacks, suites or tasks" when not recognised); the model names in a set that differ only in spelling.
 */
export interface UnlikeGroups {
  models: Map<string, string>;
  conditions: Map<string, string>;
  spellings: Set<string>;
}

/** {@link likeForLikeWarnings} from the collected groups. */
function warningsOf(perModel: Map<string, Map<string, Group>>, perCondition: Map<string, Map<string, Group>>, words: { ran?: string; hint?: string }, tags?: UnlikeGroups): string[] {
  const ran = words.ran ?? "ran";
  const hintOver = words.hint !== undefined ? { narrow: words.hint, none: words.hint, cells: words.hint } : {};
  const out: string[] = [];
  for (const [model, m] of byName(perModel)) {
    if (m.size < 2) continue;
    const w = differs(`${shownName(model)}: its conditions`, byName(m), `its ${ATTACK_MIX_MARK}`, {
      narrow: "compare --by condition (common cells)",
      none: "compare --by condition names what differs",
      cells: "compare --by condition compares them on the shared cells",
      ...hintOver,
    }, ran);
    if (w) out.push(w);
    if (w) tags?.models.set(model, mixKindOf(w.slice(`${shownName(model)}: its conditions`.length)) ?? "different attacks, suites or tasks");
  }
  const named = perCondition.size > 1;
  for (const [cond, m] of byName(perCondition)) {
    if (m.size < 2) continue;
    const w = differs(`agent models${named ? ` under condition ${shownName(cond)}` : ""}`, byName(m), `their ${MODEL_MIX_MARK}`, {
      narrow: "compare --common-tasks (the tasks every model ran)",
      none: "compare names what differs",
      cells: "compare --common-tasks compares them on the tasks every model ran",
      ...hintOver,
    }, ran);
    if (w) out.push(w);
    if (w) tags?.conditions.set(cond, mixKindOf(w.slice(`agent models${named ? ` under condition ${shownName(cond)}` : ""}`.length)) ?? "different attacks, suites or tasks");
  }
  const spellings = new Map<string, Set<string>>();
  for (const m of new Set([...perCondition.values()].flatMap((x) => [...x.keys()]))) {
    const k = spellingKey(m);
    let s = spellings.get(k);
    if (!s) spellings.set(k, (s = new Set()));
    s.add(m);
  }
  for (const [, s] of byName(spellings)) {
    if (s.size < 2) continue;
    for (const m of s) tags?.spellings.add(m);
    const names = [...s].sort().map(shownSpelling);
    out.push(
      `agent model names ${names.join(" and ")} differ only in ${orList(spellingDifferences(s))}: ${MODEL_SPELLING_MARK} (they may be one model run on different benchmarks or settings, whose pooled rate would mix them); ` +
        `if they are one model, give its runs one spelling to pool them`,
    );
  }
  return out;
}
