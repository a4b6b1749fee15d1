/**
 * Distinct values numbered from 0 in order of first appearance, by their JSON text: what a reader keeps per
 * trajectory is the small code, not the value (issue 26). Used by the column reader (`./columns.ts`: index rows and
 * slim verdicts) and by `agree`'s source-folder keys (`../agree/pooled-sources.ts`).
 */
export class Codes<T> {
  /** The values, each at its code. */
  readonly values: T[] = [];
  private readonly byKey = new Map<string, number>();

  /** The code of `x`: the same code for values with the same JSON text. */
  code(x: T): number {
    const k = JSON.stringify(x);
    let c = this.byKey.get(k);
    if (c === undefined) {
      c = this.values.length;
      this.values.push(x);
      this.byKey.set(k, c);
    }
    return c;
  }
}
