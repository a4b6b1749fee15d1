/**
 * A set of trajectory ids held as one bit per slot of an {@link IdSlots} table (the run store's, which numbers every
 * id read once: `RunStore.idSlots`): an id in the set costs one bit, not a JS string and a `Set` entry (~100 bytes at
 * ~60 characters). Exact: membership goes through the table's byte-for-byte id lookup, never a hash alone.
 */
import type { IdSlots } from "./id-slots.js";
import { grownSize } from "./int-column.js";

/** A set of ids as bits over an {@link IdSlots} table (module docstring). */
export class IdBits {
  private bits = new Uint8Array(0);
  private n = 0;

  /** @param slots the id table the bits index (ids added here that it lacks are added to it). */
  constructor(private readonly slots: IdSlots) {}

  /** Add `id` (a no-op when present). */
  add(id: string): void {
    const s = this.slots.slot(id);
    const byte = s >>> 3;
    if (byte >= this.bits.length) {
      const b = new Uint8Array(grownSize(this.bits.length, byte + 1));
      b.set(this.bits);
      this.bits = b;
    }
    const mask = 1 << (s & 7);
    if ((this.bits[byte] & mask) === 0) {
      this.bits[byte] |= mask;
      this.n++;
    }
  }

  /** Whether `id` was added. */
  has(id: string): boolean {
    const s = this.slots.find(id);
    if (s === -1) return false;
    const byte = s >>> 3;
    return byte < this.bits.length && (this.bits[byte] & (1 << (s & 7))) !== 0;
  }

  /** How many distinct ids were added. */
  get size(): number {
    return this.n;
  }
}
