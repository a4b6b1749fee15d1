/**
 * What the report's by-condition views are over (./condition-views.ts), said in the section's heading and in a note
 * under it: like for like (each agent model's cells over the cells all its values ran), each cell's runs left out,
 * the models withheld (their values share no cell) with why; or, with `--own-mix` or cells that cannot be compared,
 * that each cell is over its own runs.
 */
import type { ConditionView } from "./condition-views.js";
import { escapeHtml } from "./escape.js";

const q = (s: string) => JSON.stringify(s);

/** The heading's words after "Attack success by condition": which runs its cells are over ("" for a view made before it). */
export function conditionsPopulationHeading(views: readonly ConditionView[]): string {
  const kinds = new Set(views.map((v) => v.population?.kind));
  if (kinds.has("own_mix")) return " (each cell over its own runs: --own-mix, not like for like)";
  if (kinds.has("cells_unknown")) return " (each cell over its own runs: cells not compared)";
  if (kinds.has("like_for_like")) return " (like for like: each agent model's cells over the cells all its values ran)";
  return "";
}

/**
 * The note under the heading: per view field (its asr_goal view; asr_behaviour's is over the same runs) the cells that
 * left runs out, the models withheld, or why the cells are over their own runs. "" when there is nothing to say.
 */
export function conditionsOverHtml(views: readonly ConditionView[]): string {
  const items: string[] = [];
  for (const v of views.filter((x) => x.rate === "asr_goal")) {
    const p = v.population;
    if (!p) continue;
    if (p.kind === "own_mix") {
      items.push(`${escapeHtml(v.field)}: each cell over every attacked run of its own (--own-mix); without it, each agent model's cells are over the cells all its ${escapeHtml(v.field)} values ran`);
      continue;
    }
    if (p.kind === "cells_unknown") {
      items.push(`${escapeHtml(v.field)}: NOT like for like: each cell over its own runs, the cells not compared (${escapeHtml(p.reason ?? "")})`);
      continue;
    }
    const cut = v.cells.filter((c) => (c.n_attacked_left_out ?? 0) > 0).map((c) => `${escapeHtml(q(c.model))} | ${escapeHtml(q(c.condition))}: ${escapeHtml(c.over ?? "")}`);
    const withheld = (v.withheld ?? []).map((w) => `${escapeHtml(q(w.model))} withheld: ${escapeHtml(w.reason)}`);
    items.push(`${escapeHtml(v.field)}: like for like; ${cut.length ? `over fewer runs than they have: ${cut.join("; ")}` : "every cell over all its runs"}${withheld.length ? `; ${withheld.join("; ")}` : ""}`);
  }
  return items.length ? `<p class="note population">What each cell is over: ${items.map((x) => `${x}.`).join(" ")}</p>` : "";
}
