/**
 * The order of run ids by which recovered injected text names its source (`./siblings.ts`, `./clean-diff.ts`).
 */

/**
 * Order of two run ids as one walk of a folder meets them: path segments (`/`) compared one by one in UTF-16 code-unit
 * order (as the walk sorts folder entries, `../ingest/walk.ts`), a segment that is a prefix of the other first. The
 * sibling (or clean run) a verdict names is the least of its candidates by this order, so it does not depend on the
 * order the input paths were given in (red team 22 L2: keeping the first one read named another sibling in 360 of
 * 21,402 verdicts when the same folders were given in another order); within one folder it is mostly the one the
 * walk reads first, as before (not always: the walk sorts file names with their `.json`).
 * @returns a negative number, 0 or a positive number.
 */
export function walkOrder(a: string, b: string): number {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < x.length && i < y.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length - y.length;
}
