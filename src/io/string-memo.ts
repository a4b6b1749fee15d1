/**
 * A bounded memo of a pure function of a string (`f(key)`), least recently used evicted first, for the texts that
 * recur across the trajectories of a corpus (issue 26: AgentDojo runs share their prompts and tool results across
 * thousands of runs). `get` returns exactly what `f` returns: the memo only saves the work.
 */
export class StringMemo<V> {
  private readonly map = new Map<string, V>();
  private chars = 0;

  /**
   * @param f the function memoized (pure: the same key gives the same value)
   * @param sizeOf characters a value holds (counted with its key against `maxChars`)
   * @param opts `maxEntries`, `maxChars` (keys and values), and `minChars`: keys shorter than this are computed, not kept
   *   (a look-up would cost about what `f` does); a key longer than an eighth of `maxChars`, or an entry (key and
   *   value) counting more than that, is never kept (kept, it would evict most of the memo, itself included)
   */
  constructor(
    private readonly f: (key: string) => V,
    private readonly sizeOf: (v: V) => number,
    private readonly opts: { maxEntries: number; maxChars: number; minChars: number },
  ) {}

  /** `f(key)`, from the memo when held (then moved to most recently used). */
  get(key: string): V {
    if (key.length < this.opts.minChars || key.length > this.opts.maxChars / 8) return this.f(key);
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const v = this.f(key);
    const size = key.length + this.sizeOf(v);
    if (size > this.opts.maxChars / 8) return v;
    this.map.set(key, v);
    this.chars += size;
    for (const [k, old] of this.map) {
      if (this.map.size <= this.opts.maxEntries && this.chars <= this.opts.maxChars) break;
      this.map.delete(k);
      this.chars -= k.length + this.sizeOf(old);
    }
    return v;
  }

  /** Number of keys held. */
  get size(): number {
    return this.map.size;
  }

  /** Characters held (keys and values, as `sizeOf` counts them). */
  get heldChars(): number {
    return this.chars;
  }

  /** Forget everything (tests). */
  clear(): void {
    this.map.clear();
    this.chars = 0;
  }
}
