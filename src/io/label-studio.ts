/**
 * Recognizing Label Studio's JSON-MIN export: an array with one flat object per task (the task's data fields,
 * `id`, `annotator`, `annotation_id`, `created_at`, `updated_at`, `lead_time`, and each control's value under its
 * name). It keeps ONE annotation per task, so when several people labelled a task all but one are missing: it
 * can be imported as labels, but agreement between annotators cannot be computed from it. The full "JSON" export
 * (tasks with `annotations[]`) keeps every annotation.
 */

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function looksMin(o: Record<string, unknown>): boolean {
  if (isObj(o.data) || Array.isArray(o.annotations) || Array.isArray(o.completions)) return false;
  if ("annotation_id" in o) return true;
  if ("annotator" in o && "lead_time" in o) return true;
  return "id" in o && "annotator" in o && ("created_at" in o || "updated_at" in o);
}

/**
 * Whether a parsed JSON value is a Label Studio JSON-MIN export.
 * @param rows the parsed file.
 * @returns null when it is not; else a short description (`N tasks, one annotation each, annotators: ...`).
 */
export function describeLabelStudioJsonMin(rows: unknown): string | null {
  if (!Array.isArray(rows) || rows.length === 0) return null;
  const objs = rows.filter(isObj);
  if (objs.length !== rows.length) return null;
  const min = objs.filter(looksMin).length;
  if (min * 2 < objs.length) return null;
  const who = new Set<string>();
  for (const o of objs) {
    const a = o.annotator;
    if (typeof a === "string" || typeof a === "number") who.add(String(a));
    else if (isObj(a)) who.add(String(a.email ?? a.username ?? a.id ?? "?"));
  }
  const names = [...who].slice(0, 5).join(", ") + (who.size > 5 ? `, ... (${who.size})` : "");
  return `${objs.length} task${objs.length === 1 ? "" : "s"}, one annotation each${who.size ? `, annotator${who.size === 1 ? "" : "s"} ${names}` : ""}`;
}

/** The warning shown when a JSON-MIN export is imported as annotations. */
export function jsonMinWarning(file: string, description: string): string {
  return (
    `${file} is a Label Studio JSON-MIN export (${description}): it keeps one annotation per task, so if several ` +
    `people labelled a task only one of them is here, and agreement between annotators cannot be computed from it. ` +
    `For agreement, export "JSON" (every annotation) from Label Studio and import that.`
  );
}
