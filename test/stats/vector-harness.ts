/**
 * Harness for the reference-vector tests: walks EVERY leaf of a vector JSON file and requires each one to be
 * claimed by a resolver: a numeric check against our computed value (to the published precision), a custom
 * assertion, or an explicit "comment/input" acknowledgement. A leaf nobody claims becomes a failing test, so
 * a vector entry this library does not implement fails loudly instead of being skipped.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { VECTORS } from "../helpers/paths.js";

export type PathKey = (string | number)[];

/** What a resolver says about one leaf. */
export type Check =
  | { kind: "number"; actual: number | null | undefined; decimals?: number }
  | { kind: "exact"; actual: unknown }
  | { kind: "assert"; fn: () => void }
  | { kind: "comment" };

export interface Resolver {
  match: RegExp;
  resolve: (p: PathKey, expected: unknown) => Check;
}

export const comment: Check = { kind: "comment" };
export const num = (actual: number | null | undefined, decimals?: number): Check => ({ kind: "number", actual, decimals });
export const exact = (actual: unknown): Check => ({ kind: "exact", actual });
export const assert = (fn: () => void): Check => ({ kind: "assert", fn });

export function loadVector<T = any>(file: string): T {
  return JSON.parse(fs.readFileSync(path.join(VECTORS, file), "utf8")) as T;
}

export function listVectorFiles(): string[] {
  return fs
    .readdirSync(VECTORS)
    .filter((f) => f.endsWith(".json"))
    .sort();
}

/** All leaves (number | string | boolean | null) with their paths. */
export function leaves(obj: unknown, p: PathKey = []): { path: PathKey; value: unknown }[] {
  if (obj === null || typeof obj !== "object") return [{ path: p, value: obj }];
  if (Array.isArray(obj)) {
    if (obj.length === 0) return [{ path: p, value: obj }];
    return obj.flatMap((v, i) => leaves(v, [...p, i]));
  }
  const entries = Object.entries(obj as Record<string, unknown>);
  if (entries.length === 0) return [{ path: p, value: obj }];
  return entries.flatMap(([k, v]) => leaves(v, [...p, k]));
}

/** Number of decimals a literal was published with (from its shortest JS rendering). */
export function decimalsOf(x: number): number {
  const s = String(x);
  const m = /e-(\d+)$/.exec(s);
  if (m) {
    const mant = s.slice(0, s.indexOf("e"));
    const frac = mant.includes(".") ? mant.split(".")[1].length : 0;
    return frac + Number(m[1]);
  }
  return s.includes(".") ? s.split(".")[1].length : 0;
}

/** Parse "num/den" exact fractions. */
export function fraction(s: string): number {
  const m = /^(-?\d+)\/(\d+)$/.exec(s.trim());
  if (m) return Number(m[1]) / Number(m[2]);
  const n = Number(s);
  if (!Number.isFinite(n)) throw new Error(`not a fraction: ${s}`);
  return n;
}

/**
 * Compare to the published precision: |actual − expected| <= 0.5·10^−d (+1e-12), d = declared decimals or the
 * literal's own decimals. Integer-valued expectations with no declared decimals are exact (to 1e-9).
 */
export function expectPublished(actual: number | null | undefined, expected: number, decimals: number | undefined, label: string): void {
  expect(actual, `${label}: no value computed`).not.toBeUndefined();
  expect(actual, `${label}: computed null, published ${expected}`).not.toBeNull();
  const d = decimals ?? decimalsOf(expected);
  const tol = decimals === undefined && Number.isInteger(expected) ? 1e-9 : 0.5 * 10 ** -d * (1 + 1e-9) + 1e-12;
  const diff = Math.abs((actual as number) - expected);
  if (!(diff <= tol)) {
    throw new Error(`${label}: computed ${actual}, published ${expected} (${d} decimals, tolerance ${tol.toExponential(2)}, off by ${diff.toExponential(3)})`);
  }
}

const tally = new Map<string, { numbers: number; asserts: number; comments: number }>();

/**
 * Define one `it` per leaf of the vector file. Leaves under `exclude` paths (metadata prose) are counted as
 * comments only when a resolver also says so; unmatched leaves fail.
 */
export function vectorSuite(file: string, resolvers: Resolver[], opts: { decimals?: (p: PathKey, expected: number) => number | undefined } = {}): void {
  const data = loadVector(file);
  const all = leaves(data);
  const counts = { numbers: 0, asserts: 0, comments: 0 };
  tally.set(file, counts);
  describe(`vector ${file}`, () => {
    for (const leaf of all) {
      const key = leaf.path.join(".");
      const r = resolvers.find((x) => x.match.test(key));
      if (!r) {
        it(`${key}: has a check`, () => {
          throw new Error(`vector leaf ${file}:${key} = ${JSON.stringify(leaf.value)} is not checked by any resolver (not implemented?)`);
        });
        continue;
      }
      let check: Check;
      try {
        check = r.resolve(leaf.path, leaf.value);
      } catch (e) {
        it(`${key}`, () => {
          throw e;
        });
        continue;
      }
      if (check.kind === "comment") {
        counts.comments++;
        continue;
      }
      if (check.kind === "assert") counts.asserts++;
      else counts.numbers++;
      it(`${key} = ${JSON.stringify(leaf.value)}`, () => {
        if (check.kind === "assert") check.fn();
        else if (check.kind === "exact") expect(check.actual).toEqual(leaf.value);
        else if (check.kind === "number") {
          if (leaf.value === null) {
            expect(check.actual, `${key}: published undefined (null), computed ${check.actual}`).toBeNull();
          } else if (typeof leaf.value === "string") {
            const ev = fraction(leaf.value);
            expect(check.actual).not.toBeNull();
            expect(Math.abs((check.actual as number) - ev), `${key}: ${check.actual} vs ${leaf.value}`).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(ev)));
          } else {
            const dec = check.decimals ?? opts.decimals?.(leaf.path, leaf.value as number);
            expectPublished(check.actual, leaf.value as number, dec, `${file}:${key}`);
          }
        }
      });
    }
    afterAll(() => {
      console.log(`[vectors] ${file}: ${counts.numbers} values compared, ${counts.asserts} behaviour assertions, ${counts.comments} prose/metadata leaves acknowledged (of ${all.length} leaves)`);
    });
  });
}

/** Regex helper for path patterns: `p("cases", N, "expected", "kappa")`. */
export function p(...parts: (string | RegExp)[]): RegExp {
  return new RegExp(`^${parts.map((x) => (typeof x === "string" ? x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : x.source)).join("\\.")}$`);
}
export const N = /\d+/;
export const ANY = /[^.]+/;
/** Metadata resolvers: prose under `name`, `source`, `notes`, `note`... counted as comments. */
export function metadata(...keys: string[]): Resolver[] {
  return keys.map((k) => ({ match: new RegExp(`^${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\.|$)`), resolve: () => comment }));
}
