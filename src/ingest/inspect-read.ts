/**
 * Reading Inspect AI log files: `.eval` zips streamed entry by entry with yauzl (only the central directory and
 * one sample in memory at a time: a `.eval` can hold thousands of samples), and `.json` logs parsed whole.
 */
import yauzl from "yauzl";
import type { IngestError } from "../types.js";
import { ingestError, tooLargeError } from "./errors.js";
import { convertInspectSample, inspectHeader, rawArguments, type InspectHeader, type InspectOptions } from "./inspect.js";
import { decodeFailure, decodeUtf8Strict, parseJson } from "./text.js";
import { inspectLogRepeats, repeatedKeyError, repeatedKeyText } from "./repeated-keys.js";
import type { ConvertResult } from "./agentdojo.js";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The zip entries of a `.eval` that hold samples: `samples/<id>_epoch_<epoch>.json`. */
export const SAMPLE_ENTRY = /^samples\/[^/]+\.json$/;
/** The header entries, most complete first. */
const HEADER_ENTRIES = ["header.json", "_journal/start.json", "start.json"];

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, zip) => (err || !zip ? reject(err ?? new Error("cannot open")) : resolve(zip))),
  );
}

/** Every entry of an open zip (central directory only; nothing is decompressed). */
function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const out: yauzl.Entry[] = [];
    zip.on("entry", (e: yauzl.Entry) => {
      out.push(e);
      zip.readEntry();
    });
    zip.once("end", () => resolve(out));
    zip.once("error", reject);
    zip.readEntry();
  });
}

/** The bytes of one entry; rejects with a RangeError when it grows past `max` while decompressing. */
function readEntry(zip: yauzl.ZipFile, e: yauzl.Entry, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(e, (err, stream) => {
      if (err || !stream) return reject(err ?? new Error("cannot read entry"));
      const chunks: Buffer[] = [];
      let n = 0;
      stream.on("data", (c: Buffer) => {
        n += c.length;
        if (n > max) {
          stream.destroy(new RangeError(`entry over ${max} bytes`));
          return;
        }
        chunks.push(c);
      });
      stream.once("error", reject);
      stream.once("end", () => resolve(Buffer.concat(chunks)));
    });
  });
}

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** One item of an Inspect read: a converted sample (or its error), or an error of the whole file. */
export type InspectItem = ConvertResult;

/**
 * The number of samples of a `.eval` file, from its central directory (for progress); 1 when it cannot be read.
 */
export async function countEvalSamples(file: string): Promise<number> {
  let zip: yauzl.ZipFile | undefined;
  try {
    zip = await openZip(file);
    const n = (await listEntries(zip)).filter((e) => SAMPLE_ENTRY.test(e.fileName)).length;
    return Math.max(1, n);
  } catch {
    return 1;
  } finally {
    zip?.close();
  }
}

/**
 * Read a `.eval` zip: its header (`header.json`, else `_journal/start.json` or `start.json`: task, model, ids),
 * then every `samples/*.json` entry in the zip's order, each converted by {@link convertInspectSample}.
 * An entry over `max` bytes is a `too_large` error; an entry that is not UTF-8 JSON an `invalid_utf8` /
 * `invalid_json` error naming the entry; a file that is not a zip a `read_error`; a zip without samples one
 * `no_messages` error. Never throws.
 */
export async function* readInspectEval(file: string, idPath: string, max: number, opts: InspectOptions): AsyncGenerator<InspectItem> {
  let zip: yauzl.ZipFile | undefined;
  try {
    try {
      zip = await openZip(file);
    } catch (e) {
      yield { ok: false, error: ingestError("read_error", file, `not a readable .eval (zip) file: ${errText(e)}`) };
      return;
    }
    let entries: yauzl.Entry[];
    try {
      entries = await listEntries(zip);
    } catch (e) {
      yield { ok: false, error: ingestError("read_error", file, `cannot list the .eval (zip) entries: ${errText(e)}`) };
      return;
    }
    let header: InspectHeader = {};
    for (const name of HEADER_ENTRIES) {
      const e = entries.find((x) => x.fileName === name);
      if (!e) continue;
      try {
        const d = decodeUtf8Strict(await readEntry(zip, e, max));
        const p = d.ok ? parseJson(d.text) : undefined;
        if (p?.ok) {
          header = inspectHeader(p.value);
          break;
        }
      } catch {
        // a header that cannot be read leaves the task and model unknown; the samples are still read
      }
    }
    const samples = entries.filter((e) => SAMPLE_ENTRY.test(e.fileName));
    if (samples.length === 0) {
      yield { ok: false, error: ingestError("no_messages", file, "an Inspect .eval log without samples (samples/*.json): nothing to judge") };
      return;
    }
    const places = entryPlaces(samples.map((e) => e.fileName));
    for (const [k, e] of samples.entries()) {
      if (e.uncompressedSize > max) {
        yield { ok: false, error: { ...tooLargeError(file, "file", e.uncompressedSize, max), message: `${file}: ${e.fileName}: ${tooLargeError(file, "file", e.uncompressedSize, max).message.slice(file.length + 2)}` } };
        continue;
      }
      let bytes: Buffer;
      try {
        bytes = await readEntry(zip, e, max);
      } catch (err) {
        const kind = err instanceof RangeError ? "too_large" : "read_error";
        yield { ok: false, error: ingestError(kind, file, `${e.fileName}: cannot read the entry: ${errText(err)}`) };
        continue;
      }
      const d = decodeUtf8Strict(bytes);
      if (!d.ok) {
        const err: IngestError = decodeFailure(d, file);
        yield { ok: false, error: { ...err, message: `${file}: ${e.fileName}: ${err.message.slice(file.length + 2)}` } };
        continue;
      }
      const p = parseJson(d.text);
      if (!p.ok) {
        yield { ok: false, error: ingestError("invalid_json", file, `${e.fileName}: ${p.message}`) };
        continue;
      }
      const repeated = repeatedKeyError(d.text, p.value, file);
      if (repeated !== undefined) {
        yield { ok: false, error: { ...repeated, message: `${file}: ${e.fileName}: ${repeated.message.slice(file.length + 2)}` } };
        continue;
      }
      yield convertInspectSample(p.value, header, { path: file, idPath, entry: places[k] }, opts, rawArguments(d.text, false).get(0));
    }
  } finally {
    zip?.close();
  }
}

/**
 * The place of each sample entry of a `.eval` (its `source.entry`): the entry name, or, when a zip holds that name
 * more than once (a zip may; yauzl lists both), the name and its rank among them (`samples/7_epoch_1.json #2`): two
 * entries are two items, never "the same input" (red team 30).
 */
export function entryPlaces(names: readonly string[]): string[] {
  const total = new Map<string, number>();
  for (const n of names) total.set(n, (total.get(n) ?? 0) + 1);
  const rank = new Map<string, number>();
  return names.map((n) => {
    if (total.get(n) === 1) return n;
    const r = (rank.get(n) ?? 0) + 1;
    rank.set(n, r);
    return `${n} #${r}`;
  });
}

/** True when a parsed `.json` value is an Inspect `EvalLog` (`eval` object with `task`, and `samples` or `status`). */
export function isInspectLog(v: unknown): boolean {
  return isObj(v) && isObj(v.eval) && (Array.isArray(v.samples) || typeof v.status === "string") && typeof v.eval.task === "string";
}

/**
 * The samples of a parsed `.json` Inspect log, each converted. `text` is the file's text (for the raw tool-call
 * arguments). A log without samples (`samples` missing: written header-only) is one `no_messages` error. A sample
 * whose JSON gives a key twice with different values is a `schema` error; such a key outside the samples makes the
 * whole log one.
 */
export function convertInspectLog(text: string, log: Json, file: string, idPath: string, opts: InspectOptions): InspectItem[] {
  const header = inspectHeader(log);
  const samples = Array.isArray(log.samples) ? log.samples : [];
  if (samples.length === 0) return [{ ok: false, error: ingestError("no_messages", file, "an Inspect log without samples: nothing to judge") }];
  const repeats = inspectLogRepeats(text, log); // a key given twice with different values (./repeated-keys.ts)
  if (repeats.whole) return [{ ok: false, error: ingestError("schema", file, repeatedKeyText(repeats.whole)) }];
  const raw = rawArguments(text, true);
  return samples.map((s, i) => {
    const r = repeats.bySample.get(i);
    if (r !== undefined) return { ok: false, error: ingestError("schema", file, repeatedKeyText(r)) };
    return convertInspectSample(s, header, { path: file, idPath, entry: `samples[${i}]` }, opts, raw.get(i));
  });
}
