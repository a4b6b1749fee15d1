/**
 * `JSON.stringify(value, null, 2)` written in chunks instead of built as one string: the same text, byte for byte,
 * handed to `write` in pieces of about `chunk` characters. A command's `--json` output on a million-trajectory run
 * can be tens of MB (agree --reference at 1M: 29.6 MB); built whole it is one string, then that string plus a
 * newline, then its bytes for the stream: three copies at once. Written streamed it is never more than a chunk.
 *
 * What `JSON.stringify` does (ECMA-262, SerializeJSONProperty / SerializeJSONObject / SerializeJSONArray), and so
 * what this does: a value's `toJSON(key)` is called first; Number, String and Boolean objects are unwrapped;
 * strings are quoted by `JSON.stringify` itself (the same escapes, lone surrogates as `\udXXX`); non-finite numbers
 * are `null`; `undefined`, functions and symbols are left out of objects and `null` in arrays; a BigInt and a
 * cycle throw a `TypeError`; an object's keys are `Object.keys` (integer keys first, then insertion order);
 * an empty object or array is `{}` / `[]`; nesting is indented by two spaces.
 * test/io/json-stream.test.ts compares it with `JSON.stringify(x, null, 2)` on varied values.
 */

/** Options of {@link writeJson}. */
export interface WriteJsonOptions {
  /** flush when the pending text reaches this many characters (default 1 MiB of characters) */
  chunk?: number;
  /**
   * Called on every object (not array) after `toJSON`, before its keys are written: what it returns is written in
   * its place (e.g. `../format/interval-json.ts`). Not part of `JSON.stringify`; absent, the text is the same.
   */
  objects?: (o: object) => object;
}

/**
 * Write `JSON.stringify(value, null, 2)` to `write` in chunks (module docstring). When `value` itself serializes
 * to nothing (`undefined`, a function), nothing is written, as `JSON.stringify` returns `undefined`.
 * @param write called with each chunk, in order (e.g. `(s) => process.stdout.write(s)`).
 * @throws TypeError on a BigInt or a cycle, as `JSON.stringify` (what was written before stays written).
 */
export function writeJson(value: unknown, write: (chunk: string) => void, opts: WriteJsonOptions = {}): void {
  const limit = opts.chunk ?? 1 << 20;
  let pending = "";
  const out = (s: string) => {
    pending += s;
    if (pending.length >= limit) {
      write(pending);
      pending = "";
    }
  };
  const stack: object[] = [];
  // SerializeJSONObject / SerializeJSONArray of a value already through prepare() and serializable
  const emit = (v: unknown, indent: string): void => {
    if (v === null) return out("null");
    switch (typeof v) {
      case "boolean":
        return out(v ? "true" : "false");
      case "string":
        return out(JSON.stringify(v));
      case "number":
        return out(Number.isFinite(v) ? String(v) : "null");
      case "bigint":
        throw new TypeError("Do not know how to serialize a BigInt");
    }
    const o0 = v as object;
    if (stack.includes(o0)) throw new TypeError("Converting circular structure to JSON");
    stack.push(o0);
    const o = opts.objects && !Array.isArray(o0) ? opts.objects(o0) : o0;
    const inner = indent + "  ";
    if (Array.isArray(o)) {
      if (o.length === 0) out("[]");
      else {
        out("[\n" + inner);
        for (let i = 0; i < o.length; i++) {
          if (i > 0) out(",\n" + inner);
          const x = prepare(o[i], String(i));
          if (serializable(x)) emit(x, inner);
          else out("null");
        }
        out("\n" + indent + "]");
      }
    } else {
      let first = true;
      for (const k of Object.keys(o)) {
        const x = prepare((o as Record<string, unknown>)[k], k);
        if (!serializable(x)) continue; // left out, as JSON.stringify leaves it
        out((first ? "{\n" : ",\n") + inner + JSON.stringify(k) + ": ");
        first = false;
        emit(x, inner);
      }
      out(first ? "{}" : "\n" + indent + "}");
    }
    stack.pop();
  };
  const top = prepare(value, "");
  if (!serializable(top)) return;
  emit(top, "");
  if (pending) write(pending);
}

/** SerializeJSONProperty's first steps: `toJSON(key)` when the value has one, then boxed primitives unwrapped. */
function prepare(v: unknown, key: string): unknown {
  if (v !== null && (typeof v === "object" || typeof v === "bigint")) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, key);
  }
  if (v instanceof Number) return Number(v);
  if (v instanceof String) return String(v);
  if (v instanceof Boolean) return v.valueOf();
  return v;
}

/** Whether a prepared value serializes to something (not `undefined`, a function or a symbol). */
function serializable(v: unknown): boolean {
  return v === null || (typeof v !== "undefined" && typeof v !== "function" && typeof v !== "symbol");
}
