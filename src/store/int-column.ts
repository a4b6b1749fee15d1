/**
 * A growable column of integers (`IntColumn`), apart from `./compact.ts` so that `./id-slots.ts` can hold its slots in
 * one without a cycle (compact.ts re-exports both).
 */
/** Next capacity for at least `need` elements: 1.5x steps from `have` (a million elements then waste <= 1/3). */
export function grownSize(have: number, need: number): number {
  let n = Math.max(16, have);
  while (n < need) n = Math.ceil(n * 1.5);
  return n;
}

/**
 * A growable column of integers, `fill` where never set. Nothing held while every value set is its own index, set in
 * order from 0 (issue 26: a run's slot -> place and place -> slot columns are that for a one-judge run read in order,
 * 4 bytes a trajectory each at a million). Then narrow while it can be: one byte per element as long as every value
 * set is an integer in `fill .. fill + 255` (codes of few distinct strings, small counts), four (an Int32Array, which
 * truncates as it always did) from the first value outside it. Exact in every form; grown by 1.5x.
 */
export class IntColumn {
  /** while {@link narrow} and {@link wide} are null: indexes 0 .. ident - 1 hold their own index, the others `fill` */
  private ident = 0;
  /** value - fill, while every value fits */
  private narrow: Uint8Array | null = null;
  private wide: Int32Array | null = null;
  constructor(
    private readonly fill = -1,
    private readonly initial = 1024,
  ) {}
  get(i: number): number {
    if (this.narrow) return i < this.narrow.length ? this.narrow[i] + this.fill : this.fill;
    if (this.wide) return i < this.wide.length ? this.wide[i] : this.fill;
    // as an array read would: a negative or fractional index below the length is undefined + fill (NaN)
    if (i < this.ident) return i >= 0 && (i | 0) === i ? i : NaN;
    return this.fill;
  }
  set(i: number, v: number): void {
    if (this.narrow === null && this.wide === null) {
      if (v === i && i === this.ident) {
        this.ident++;
        return;
      }
      if (v === i && i >= 0 && i < this.ident) return;
      this.materialize();
    }
    const d = v - this.fill;
    if (this.narrow) {
      if ((d & 0xff) === d) {
        if (i >= this.narrow.length) {
          const b = new Uint8Array(grownSize(this.narrow.length, i + 1));
          b.set(this.narrow);
          this.narrow = b;
        }
        this.narrow[i] = d;
        return;
      }
      this.widen();
    }
    let w = this.wide!;
    if (i >= w.length) {
      const b = new Int32Array(grownSize(w.length, i + 1)).fill(this.fill);
      b.set(w);
      this.wide = w = b;
    }
    w[i] = v;
  }
  /** Leave the "own index" form: hold indexes 0 .. ident - 1 in an array (narrow while they fit). */
  private materialize(): void {
    const n = this.ident;
    const len = grownSize(this.initial, n);
    if (n === 0 || (this.fill <= 0 && n - 1 - this.fill <= 255)) {
      const a = (this.narrow = new Uint8Array(len));
      for (let k = 0; k < n; k++) a[k] = k - this.fill;
    } else {
      const a = (this.wide = new Int32Array(len).fill(this.fill));
      for (let k = 0; k < n; k++) a[k] = k;
    }
  }

  private widen(): void {
    const n = this.narrow!;
    const w = new Int32Array(n.length);
    for (let k = 0; k < n.length; k++) w[k] = n[k] + this.fill;
    this.wide = w;
    this.narrow = null;
  }
}
