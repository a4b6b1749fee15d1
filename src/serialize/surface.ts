/**
 * Attack surfaces (../shared/DESIGN.md section 3): where each injection entered the agent's context.
 *
 * Decided by code, per injection placeholder with a non-empty injected text: the first part of the trajectory
 * the agent **received** that carries the text, in the order the agent received them:
 * 1. the messages before the first assistant message (system prompt, the user's request),
 * 2. the tool descriptions (`Trajectory.tools`: the tool list goes with the first request to the model),
 * 3. the later messages, in order.
 * The agent's own parts (assistant text, tool calls) are never a surface. The part kind gives the surface:
 * `system_text` -> `system_prompt`, `user_text` -> `user_message`, `tool_result` -> `tool_output`,
 * `tool_description` -> `tool_description`. A format may name a finer read surface of a tool result
 * (`file`, `web_page`, `terminal_output`, ...) through `opts.toolOutputSurface`.
 *
 * "Carries" is a match of the injected text in the part verbatim, or on both sides' matching forms
 * ({@link surfaceForm}: NFKC, lowercase, letters and digits only, so whitespace, quoting and the string escapes of a
 * tool's JSON or YAML re-encoding do not matter), or of one of its lines of at least {@link MIN_LINE_CHARS}
 * matching characters (a tool that shows only part of a long injected text), looked for only when the whole
 * text is in no part.
 *
 * Given by the input: `Trajectory.surfaces[placeholder]` wins. When code located the injection on another
 * surface, a warning names both (a finer read surface such as `file` is a refinement of `tool_output`, not a
 * mismatch). Placeholders the input names in `surfaces` without an injected text (VIGIL: the poisoned tool
 * description is not recorded) keep their given surface. A placeholder whose text is nowhere in what the agent
 * received has no located surface: it takes the format's default when the format places every injection on
 * one surface ({@link FORMAT_SURFACES}, by `source.format`), else it has none (the injection never reached the
 * agent and nothing says where it was placed).
 */
import type { Message, Part, Surface, Trajectory } from "../types.js";
import { trajectoryParts } from "./parts.js";
import { isAttacked } from "../ingest/attacked.js";
import { asciiAlnum } from "./ascii-alnum.js";
import { StringMemo } from "../io/string-memo.js";
import { lettersAndDigits } from "../io/unicode-runs.js";

/**
 * Lines of an injected text this long ({@link surfaceForm} characters) or longer locate it on their own; a shorter
 * injected text is located only verbatim (a few letters would match anywhere).
 */
export const MIN_LINE_CHARS = 20;

/** The four surfaces every trajectory can tell apart; any other surface is a finer read surface of a tool output. */
export const BASE_SURFACES = ["tool_output", "tool_description", "system_prompt", "user_message"] as const;

/**
 * The surface every injection of a format is placed on, when the format says so (used for injections that never
 * reached the agent, and for attacked runs that record no injected text, so that they are still grouped by where
 * they were attacked), by `source.format`: AgentDojo places injections in tool outputs (its injection vectors are
 * fields of the environment that tools return); VIGIL in the agent's tool list (malicious tool descriptions).
 * A reader whose format records a surface per run sets `Trajectory.surfaces` instead.
 */
export const FORMAT_SURFACES: Readonly<Record<string, Surface>> = { agentdojo: "tool_output", vigil: "tool_description" };

/** The base surface of a surface: itself for the four base ones, `tool_output` for a finer read surface. */
export function baseSurface(s: Surface): (typeof BASE_SURFACES)[number] {
  return (BASE_SURFACES as readonly string[]).includes(s) ? (s as (typeof BASE_SURFACES)[number]) : "tool_output";
}

const KIND_SURFACE: Partial<Record<Part["kind"], Surface>> = {
  system_text: "system_prompt",
  user_text: "user_message",
  tool_result: "tool_output",
  tool_description: "tool_description",
};

/** What {@link decideSurfaces} found. */
export interface SurfaceDecision {
  /** placeholder -> surface, for every placeholder that has one (given or located or the format's default). */
  surfaces: Record<string, Surface>;
  /** placeholder -> where code located it (message index, or tool index for a tool description). */
  located: Record<string, { surface: Surface; message_index: number; tool_index?: number }>;
  /** How each surface was decided. */
  how: Record<string, "located" | "given" | "format">;
  /** Mismatches between a given surface and the located one, naming the trajectory, placeholder and both surfaces. */
  warnings: string[];
}

/** Options of {@link decideSurfaces}. */
export interface SurfaceOptions {
  /** A finer read surface for a tool result (e.g. `read_file` -> `file`); undefined keeps `tool_output`. */
  toolOutputSurface?: (m: Message) => Surface | undefined;
  /** The parts of the trajectory, when the caller has them (default `trajectoryParts(t)`). */
  parts?: Part[];
}

/**
 * The matching form of a text: string escapes `\n`, `\r`, `\t` (as a tool's JSON or YAML re-encoding writes them)
 * dropped, Unicode NFKC, lowercase, and every character that is not a letter or a digit dropped (whitespace,
 * punctuation, quoting, zero-width characters). One regex pass over the text: cheap enough for every tool result.
 */
export function surfaceForm(text: string): string {
  // ASCII text (most tool output): NFKC is the identity and letters/digits are [a-z0-9] once lowercased: one pass
  const ascii = asciiAlnum(text, true);
  if (ascii !== null) return ascii;
  const t = text.replace(/\\[nrt]/g, " ");
  return lettersAndDigits(t.normalize("NFKC").toLowerCase());
}

/** The injected text's matching form and the forms of its long lines, computed once per placeholder. */
interface Needle {
  form: string;
  lines: string[];
}

/**
 * The matching forms of the texts a corpus repeats (system prompts, users' requests, tool results, injected texts),
 * kept across trajectories: ~3 MB of characters at most (issue 26: each part's form was rebuilt for every trajectory).
 */
const forms = new StringMemo<string>(surfaceForm, (f) => f.length, { maxEntries: 2048, maxChars: 3 * 1024 * 1024, minChars: 64 });
const needles = new StringMemo<Needle>(needleOf, (n) => n.form.length + n.lines.reduce((a, l) => a + l.length, 0), { maxEntries: 512, maxChars: 1024 * 1024, minChars: 0 });

function needleOf(text: string): Needle {
  const form = surfaceForm(text);
  const lines = text
    .split(/\r?\n|\\n/)
    .map(surfaceForm)
    .filter((l) => l.length >= MIN_LINE_CHARS && l !== form);
  return { form, lines };
}

/**
 * Decide the surface of every injection of a trajectory (module docstring). Pure; never throws on a
 * well-formed trajectory.
 * @param t canonical trajectory (`injections`, optional `surfaces` given by the input, optional `tools`).
 * @returns surfaces by placeholder, where each was located, how each was decided, and mismatch warnings.
 */
export function decideSurfaces(t: Trajectory, opts: SurfaceOptions = {}): SurfaceDecision {
  const out: SurfaceDecision = { surfaces: {}, located: {}, how: {}, warnings: [] };
  const injections = Object.entries(t.injections ?? {}).filter(
    ([, v]) => typeof v === "string" && v.trim() !== "",
  ) as Array<[string, string]>;
  if (injections.length > 0) {
    const parts = opts.parts ?? trajectoryParts(t);
    const firstAssistant = t.messages.findIndex((m) => m.role === "assistant");
    const cut = firstAssistant === -1 ? t.messages.length : firstAssistant;
    const received = parts.filter((p) => KIND_SURFACE[p.kind] !== undefined);
    const ordered = [
      ...received.filter((p) => p.kind !== "tool_description" && p.message_index < cut),
      ...received.filter((p) => p.kind === "tool_description"),
      ...received.filter((p) => p.kind !== "tool_description" && p.message_index >= cut),
    ];
    const partForms = new Map<Part, string>();
    const formOf = (p: Part): string => {
      let f = partForms.get(p);
      if (f === undefined) partForms.set(p, (f = forms.get(p.text)));
      return f;
    };
    // placeholders with the same text (AgentDojo: one attack text in every injection vector) are found in the same part
    const foundByText = new Map<string, Part | undefined>();
    for (const [placeholder, text] of injections) {
      let found: Part | undefined;
      if (foundByText.has(text)) found = foundByText.get(text);
      else {
        const n = needles.get(text);
        const raw = text.trim();
        // The whole text first (verbatim, then its matching form); its long lines only when it is nowhere whole.
        const whole = (p: Part) => p.text.includes(raw) || (n.form.length >= MIN_LINE_CHARS && formOf(p).includes(n.form));
        const aLine = (p: Part) => n.lines.some((l) => formOf(p).includes(l));
        found = ordered.find(whole);
        if (!found && n.lines.length > 0) found = ordered.find(aLine);
        foundByText.set(text, found);
      }
      if (!found) continue;
      let surface = KIND_SURFACE[found.kind]!;
      if (found.kind === "tool_result" && opts.toolOutputSurface) {
        const m = t.messages[found.message_index];
        surface = (m && opts.toolOutputSurface(m)) || surface;
      }
      out.located[placeholder] = { surface, message_index: found.message_index, ...(found.tool_index !== undefined ? { tool_index: found.tool_index } : {}) };
    }
  }
  const given = t.surfaces && typeof t.surfaces === "object" ? t.surfaces : {};
  const placeholders = new Set([...injections.map(([k]) => k), ...Object.keys(given)]);
  const fallback = FORMAT_SURFACES[t.source?.format ?? ""];
  for (const k of placeholders) {
    const g = typeof given[k] === "string" && given[k] !== "" ? given[k] : undefined;
    const loc = out.located[k];
    if (g !== undefined) {
      out.surfaces[k] = g;
      out.how[k] = "given";
      if (loc && baseSurface(g) !== baseSurface(loc.surface) && g !== loc.surface) {
        const where = loc.tool_index !== undefined ? `tool description ${loc.tool_index}` : `message ${loc.message_index}`;
        out.warnings.push(
          `trajectory ${t.id}: injection "${k}" is given surface ${g}, but its text first reaches the agent in ${where} (${loc.surface}); keeping ${g}`,
        );
      }
    } else if (loc) {
      out.surfaces[k] = loc.surface;
      out.how[k] = "located";
    } else if (fallback !== undefined && injections.some(([p]) => p === k)) {
      out.surfaces[k] = fallback;
      out.how[k] = "format";
    }
  }
  return out;
}

/**
 * The one-value surface of a trajectory, for grouping (`compare --by surface`, ASR by surface): the distinct
 * surfaces of its injections, sorted and joined with `+` (`tool_description+tool_output`), or undefined when it
 * has none (unattacked, or no injection located and no surface given).
 */
export function trajectorySurface(surfaces: Record<string, Surface> | undefined): string | undefined {
  const vals = [...new Set(Object.values(surfaces ?? {}).filter((s): s is string => typeof s === "string" && s !== ""))].sort();
  return vals.length === 0 ? undefined : vals.join("+");
}

/**
 * The one-value surface of a trajectory (as {@link trajectorySurface} of its surfaces); for an attacked
 * trajectory whose injected texts are not recorded at all (no placeholder: AgentDojo-based DRIFT logs have no
 * `injections`), the format's surface ({@link FORMAT_SURFACES}) when the format places every injection on one.
 * @param surfaces the trajectory's surfaces by placeholder (default `decideSurfaces(t).surfaces`).
 */
export function surfaceOfTrajectory(t: Trajectory, surfaces: Record<string, Surface> = decideSurfaces(t).surfaces): string | undefined {
  const s = trajectorySurface(surfaces);
  if (s !== undefined) return s;
  const attacked = isAttacked(t);
  const placeholders = Object.keys(t.injections ?? {}).length + Object.keys(t.surfaces ?? {}).length;
  return attacked && placeholders === 0 ? FORMAT_SURFACES[t.source?.format ?? ""] : undefined;
}

/**
 * The trajectory with `surfaces` filled in by {@link decideSurfaces} (input-given surfaces kept), for readers and
 * the run index. Returns the same object when nothing changes. The warnings are returned beside it.
 */
export function withSurfaces(t: Trajectory, opts: SurfaceOptions = {}): { trajectory: Trajectory; warnings: string[] } {
  const d = decideSurfaces(t, opts);
  const before = t.surfaces ?? {};
  const same =
    Object.keys(d.surfaces).length === Object.keys(before).length && Object.entries(d.surfaces).every(([k, v]) => before[k] === v);
  if (same) return { trajectory: t, warnings: d.warnings };
  return { trajectory: { ...t, surfaces: d.surfaces }, warnings: d.warnings };
}
