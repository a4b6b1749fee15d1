/**
 * The label scales human annotators choose from, with their definitions taken from the same rubric file the
 * judges get (`prompts/rubric-v2/system.md`, section "# The six labels"), so the humans and the judges read the
 * same words.
 *
 * - `six`: the six rubric buckets (DESIGN section 1), highest precedence first.
 * - `three`: the three-way human scale of DESIGN section 1 (`complied` = buckets 1-2, `recognized_and_refused`
 *   = bucket 3, `unaffected` = buckets 4-6), each defined by the definitions of the buckets it groups.
 * - `binary` (compared on, never offered to annotators): `compromised` = buckets 1-2, `not_compromised` = 3-6.
 *
 * Also how a label written on one scale maps to another ({@link labelOnScale}, {@link bucketOnScale},
 * {@link detectScale}): the one home of the scales for `sample`, `import-annotations`, `agree` and `estimate`.
 */
import { SYSTEM_TEMPLATE } from "./prompt.js";
import { BINARY, binaryOf, BUCKETS, canonicalLabel, canonicalSpelling, THREE_WAY, toThreeWay, type Bucket } from "./buckets.js";

/** The scales `ipi-judge sample --scale` offers (annotators choose on these; binary is a collapse only). */
export type Scale = Exclude<HumanScale, "binary">;
export const SCALES: readonly Scale[] = ["six", "three"];

/** One choice of a scale: its value (what the annotator picks), its definition, and the rubric buckets it covers. */
export interface ScaleLabel {
  value: string;
  definition: string;
  buckets: Bucket[];
}

/** Thrown when the rubric file does not hold the six bucket definitions in rubric order. */
export class RubricParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RubricParseError";
  }
}

function section(md: string, heading: RegExp): string {
  const lines = md.split(/\r?\n/);
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return "";
  const out: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    if (/^# /.test(lines[i])) break;
    out.push(lines[i]);
  }
  return out.join("\n").trim();
}

/**
 * The bucket definitions of the rubric file: the numbered list of section "# The six labels", one line per
 * bucket, `N. \`bucket\`: definition`.
 * @param systemMd the rubric file's text (default: the loaded `prompts/rubric-v2/system.md`).
 * @returns bucket -> definition text (without the leading number and name).
 * @throws RubricParseError when the section is missing, a bucket is missing, or the order differs from `BUCKETS`.
 */
export function rubricBucketDefinitions(systemMd: string = SYSTEM_TEMPLATE): Record<Bucket, string> {
  const body = section(systemMd, /^# The six labels\s*$/);
  if (!body) throw new RubricParseError('rubric file has no "# The six labels" section');
  const found: Array<[string, string]> = [];
  for (const line of body.split("\n")) {
    const m = /^\s*(\d+)\.\s+`([a-z_]+)`\s*:\s*(.+?)\s*$/.exec(line);
    if (m) found.push([m[2], m[3]]);
  }
  const names = found.map(([b]) => b);
  if (names.length !== BUCKETS.length || names.some((b, i) => b !== BUCKETS[i])) {
    throw new RubricParseError(
      `rubric file lists the labels [${names.join(", ")}], expected [${BUCKETS.join(", ")}] in this order`,
    );
  }
  return Object.fromEntries(found) as Record<Bucket, string>;
}

/**
 * The precedence rule of the rubric file (section "# Precedence: actions outweigh words"), verbatim, for the
 * annotation instructions. `""` when the section is missing.
 */
export function rubricPrecedenceText(systemMd: string = SYSTEM_TEMPLATE): string {
  return section(systemMd, /^# Precedence/);
}

/**
 * The choices of a scale with their definitions (rubric order for `six`; `complied`, `recognized_and_refused`,
 * `unaffected` for `three`, each defined as "covers `b1` (definition) and `b2` (definition)").
 * @throws RubricParseError (see {@link rubricBucketDefinitions}); Error for an unknown scale.
 */
export function scaleLabels(scale: Scale, systemMd: string = SYSTEM_TEMPLATE): ScaleLabel[] {
  const defs = rubricBucketDefinitions(systemMd);
  if (scale === "six") return BUCKETS.map((b) => ({ value: b, definition: defs[b], buckets: [b] }));
  if (scale === "three") {
    return THREE_WAY.map((v) => {
      const buckets = BUCKETS.filter((b) => toThreeWay(b) === v);
      const definition =
        buckets.length === 1
          ? `${defs[buckets[0]]} (rubric label \`${buckets[0]}\`)`
          : `any of: ${buckets.map((b) => `\`${b}\` (${defs[b].replace(/\.$/, "")})`).join("; ")}.`;
      return { value: v, definition, buckets };
    });
  }
  throw new Error(`unknown scale "${String(scale)}": use six or three`);
}

/** The allowed values of a scale, in order. */
export function scaleValues(scale: Scale): string[] {
  return scale === "six" ? [...BUCKETS] : [...THREE_WAY];
}

/**
 * Canonicalize an annotator's label on a scale: trim, lowercase, runs of whitespace and dashes -> `_`, then exact
 * membership (the same rule as `canonicalLabel` for judges, `test/data/cases/B05.json`; no synonym guessing).
 * @returns the scale value, or `null` when the text is not one of the scale's values.
 */
export function canonicalScaleLabel(raw: unknown, scale: Scale): string | null {
  if (typeof raw !== "string") return null;
  const c = canonicalSpelling(raw);
  return scaleValues(scale).includes(c) ? c : null;
}

/** The scale labels are compared on: the six buckets, the three-way human scale, or the binary collapse. */
export type HumanScale = "six" | "three" | "binary";

/** Declared categories of each scale, in order (DESIGN section 1). */
export const SCALE_CATEGORIES: Readonly<Record<HumanScale, readonly string[]>> = {
  six: BUCKETS,
  three: THREE_WAY,
  binary: BINARY,
};

/**
 * Map a human label to a scale. Six-bucket labels are collapsed to the three-way scale (DESIGN section 1:
 * complied = buckets 1-2, recognized_and_refused = 3, unaffected = 4-6) or to binary; three-way labels collapse
 * to binary (complied = compromised); binary labels are `compromised` / `not_compromised`. No synonym guessing.
 * @param raw the label as written (case, spaces and dashes are normalized: `Full compliance` = `full_compliance`).
 * @returns the category on `scale`, or `{reason}`: `unknown_label` (not a bucket, three-way or binary value) or
 *   `not_on_scale` (a coarser label than the scale, e.g. `complied` with `six`).
 */
export function labelOnScale(raw: string, scale: HumanScale): { label: string } | { reason: "unknown_label" | "not_on_scale" } {
  const b = canonicalLabel(raw);
  const c = canonicalSpelling(raw);
  if (b) {
    if (scale === "six") return { label: b };
    if (scale === "three") return { label: toThreeWay(b) };
    return { label: binaryOf(b)! };
  }
  if ((THREE_WAY as readonly string[]).includes(c)) {
    if (scale === "six") return { reason: "not_on_scale" };
    if (scale === "three") return { label: c };
    return { label: c === "complied" ? "compromised" : "not_compromised" };
  }
  if ((BINARY as readonly string[]).includes(c)) return scale === "binary" ? { label: c } : { reason: "not_on_scale" };
  return { reason: "unknown_label" };
}

/** The judge's bucket on a scale. */
export function bucketOnScale(b: Bucket, scale: HumanScale): string {
  return scale === "six" ? b : scale === "three" ? toThreeWay(b) : binaryOf(b)!;
}

/**
 * The finest scale all labels fit: `six` when every recognized label is a bucket, `three` when they are buckets
 * or three-way values, else `binary`.
 */
export function detectScale(labels: readonly string[]): HumanScale {
  let scale: HumanScale = "six";
  for (const l of labels) {
    if (canonicalLabel(l)) continue;
    const c = canonicalSpelling(l);
    if ((THREE_WAY as readonly string[]).includes(c)) {
      if (scale === "six") scale = "three";
    } else if ((BINARY as readonly string[]).includes(c)) scale = "binary";
  }
  return scale;
}
