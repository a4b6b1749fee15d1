/**
 * Who is who among the annotation records' annotators (Label Studio user objects: an id and its email or username),
 * for `import-annotations` (./import.ts).
 */
/** What is read of a record here (./import.ts `AnnotationRecord`). */
type AnnotationRecord = { annotator?: string; annotator_aliases?: string[] };

/**
 * Who is who among the records' annotators: a Label Studio user object gives an id (the key) and an email or
 * username (aliases). An alias used as an annotator name elsewhere (an id-only export, a CSV column) is the same
 * person: mapped to the id. An alias given for two different ids, or an id given two different emails, is a name
 * collision: said, and not merged.
 * @returns `canonical`: alias -> id (only unambiguous ones); `notes`: what was merged and what collides.
 */
export function annotatorIdentities(records: readonly AnnotationRecord[]): { canonical: Map<string, string>; notes: string[] } {
  const idsOfAlias = new Map<string, Set<string>>();
  const aliasesOfId = new Map<string, Set<string>>();
  for (const r of records) {
    const id = r.annotator?.trim();
    if (!id || !r.annotator_aliases) continue;
    for (const a of r.annotator_aliases) {
      const al = a.trim();
      if (al === "" || al === id) continue;
      (idsOfAlias.get(al) ?? idsOfAlias.set(al, new Set()).get(al)!).add(id);
      (aliasesOfId.get(id) ?? aliasesOfId.set(id, new Set()).get(id)!).add(al);
    }
  }
  const canonical = new Map<string, string>();
  const notes: string[] = [];
  const names = new Set(records.map((r) => r.annotator?.trim()).filter((x): x is string => !!x));
  for (const [al, ids] of idsOfAlias) {
    if (ids.size > 1) {
      notes.push(`name collision: "${al}" is given for annotator ids ${[...ids].map((x) => `"${x}"`).join(", ")}: kept apart`);
      continue;
    }
    const id = [...ids][0];
    canonical.set(al, id);
    if (names.has(al)) notes.push(`annotator "${al}" is annotator id "${id}" (a Label Studio user object links them): counted as one person, "${id}"`);
  }
  for (const [id, als] of aliasesOfId) {
    const emails = [...als].filter((a) => a.includes("@"));
    if (emails.length > 1) notes.push(`name collision: annotator id "${id}" is given with ${emails.length} different emails (${emails.join(", ")}): exports of two Label Studio instances? kept as one id`);
  }
  return { canonical, notes };
}
