/**
 * The bytes of a chat completions request body: the UTF-8 of `JSON.stringify(body)` (what the `openai` client's
 * default encoder sends), built once as one `Buffer`, with the JSON bytes of the system message's content kept from
 * one request to the next.
 *
 * Why: every request of a judge sends the same rubric as its system message (~7 KB of text, about half of a
 * request's bytes), and the client re-encoded it for every request (`JSON.stringify` of the whole body: ~1.3% of
 * `label`'s CPU at 300 ms / 64, issue 26). Here only what changes (the user message, feedback turns) is encoded.
 * And the body goes out as bytes, not text: a string body was joined into one string and then copied again into
 * the UTF-8 `Buffer` undici writes (`Buffer.from`); bytes are passed through by the client and written by undici
 * as they are (the join and the conversion were ~10% of the bytes `label` allocated per item, issue 26).
 */

/** Most distinct system message contents remembered (a run has one per judge and adaptation). */
const MAX_SYSTEM_TEXTS = 8;

/**
 * A serializer of request bodies for one judge (`./sender.ts`): call it with a body as `chatRequestBody`
 * (`./request-body.ts`) builds it.
 * @returns `(body) => Buffer`, the UTF-8 bytes of `JSON.stringify(body)` for every plain JSON object: keys in the
 *   order `JSON.stringify` takes them (`Object.keys`), `undefined` and function values left out, every leaf encoded
 *   by `JSON.stringify` itself; only a system message's `content` string is looked up in the memo (by value).
 */
export function bodyJsonEncoder(): (body: Record<string, unknown>) => Buffer {
  const systemJson = new Map<string, Buffer>();
  const contentJson = (role: unknown, content: string): Piece => {
    if (role !== "system") return JSON.stringify(content);
    let j = systemJson.get(content);
    if (j === undefined) {
      j = Buffer.from(JSON.stringify(content), "utf8");
      if (systemJson.size >= MAX_SYSTEM_TEXTS) systemJson.clear();
      systemJson.set(content, j);
    }
    return j;
  };
  /** A message's JSON pieces onto `out` (the system content's from the memo). */
  const message = (out: Piece[], m: unknown): void => {
    if (m === null || typeof m !== "object" || Array.isArray(m) || typeof (m as { toJSON?: unknown }).toJSON === "function") {
      // JSON.stringify writes null for an array element that has no JSON (undefined, a function)
      out.push(JSON.stringify(m) ?? "null");
      return;
    }
    const o = m as Record<string, unknown>;
    object(out, o, (k, v) => (k === "content" && typeof v === "string" ? contentJson(o.role, v) : JSON.stringify(v)));
  };
  return (body) => {
    // the JSON text in pieces (strings, and the memo's bytes), joined once as bytes at the end
    const out: Piece[] = [];
    object(out, body, (k, v) => {
      if (k !== "messages" || !Array.isArray(v)) return JSON.stringify(v);
      const items: Piece[] = ["["];
      for (let i = 0; i < v.length; i++) {
        if (i > 0) items.push(",");
        message(items, v[i]);
      }
      items.push("]");
      return items;
    });
    return joinBytes(out);
  };
}

/** A piece of JSON text: a string, or bytes already encoded. */
type Piece = string | Buffer;

/**
 * `{"key":value,...}` of a plain object's own enumerable keys in order, pushed onto `out`; values by `value`: one
 * piece, several (an array), or undefined (the key is left out, as `JSON.stringify` leaves out a value without JSON).
 */
function object(out: Piece[], o: Record<string, unknown>, value: (k: string, v: unknown) => Piece | Piece[] | undefined): void {
  out.push("{");
  let first = true;
  for (const k of Object.keys(o)) {
    const j = value(k, o[k]);
    if (j === undefined) continue;
    out.push(`${first ? "" : ","}${JSON.stringify(k)}:`);
    first = false;
    if (Array.isArray(j)) for (const p of j) out.push(p);
    else out.push(j);
  }
  out.push("}");
}

/** The pieces as one `Buffer` of UTF-8 (strings encoded into it, bytes copied). */
function joinBytes(pieces: Piece[]): Buffer {
  let total = 0;
  const lengths = new Array<number>(pieces.length);
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i];
    lengths[i] = typeof p === "string" ? Buffer.byteLength(p, "utf8") : p.length;
    total += lengths[i];
  }
  const buf = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i];
    if (typeof p === "string") buf.write(p, at, lengths[i], "utf8");
    else p.copy(buf, at);
    at += lengths[i];
  }
  return buf;
}
