import { unwrapText } from "../../src/format/wrap-text.js";

/**
 * The lines of a text output as they were before `wrapText` broke them to 120 columns (src/format/wrap-text.ts):
 * every line indented by fewer than 4 spaces starts one, the lines under it indented by 4 or more (its continuations)
 * joined back by {@link unwrapText}. For outputs whose own lines are indented by 0 or 2 (compare's rows and warnings,
 * estimate's and agree's prose); a table whose header is indented deeper (agree's 2 x 2 tables) is joined to the line
 * above it, so read those with the printed lines.
 */
export function printedLines(text: string): string[] {
  return text.split(/\n(?! {4})/).map(unwrapText);
}
