/**
 * A name from the run files (agent model, condition, suite, attack, task id, judge model) on the view's pages:
 * shortened for display as the report and the annotators' markdown shorten names (`displayName` of
 * ../../serialize/display-cut.ts: more than 120 characters keep their head and tail around the count left out),
 * the full name in the element's `title` (shown on hover). Red team 41: a 300,000-character model name made one
 * table cell that long; fix43: the item page's other fields, the judge's model on a verdict card and the list's
 * filter menus still showed them whole.
 */
import { displayName } from "../../serialize/display-cut.js";
import { h } from "./dom.js";

/**
 * `name` itself when it is short (and undefined when absent), else a `span` showing its shortened form with the full
 * name as `title`.
 */
export function nameNode(name: string | undefined): string | HTMLElement | undefined {
  if (name === undefined) return undefined;
  const shown = displayName(name);
  return shown === name ? name : h("span", { title: name }, shown);
}
