/**
 * Every JSON Schema published in `schemas/` is a valid draft-07 schema, and the validators ipi-judge runs (compiled
 * ahead of time by `scripts/gen-validators.mjs`, ajv's standalone mode: compiling at start cost ~50 ms a schema,
 * plus 60-200 ms for the meta-schema) are exactly what the schemas give today.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript build script, no declarations
import { validatorSources } from "../scripts/gen-validators.mjs";

const DIR = path.resolve(import.meta.dirname, "..", "schemas");
const files = readdirSync(DIR).filter((f) => f.endsWith(".schema.json"));

describe("published JSON Schemas", () => {
  it("there are schemas to check", () => expect(files.length).toBeGreaterThanOrEqual(6));
  it.each(files)("%s is valid against its meta-schema and compiles", (f) => {
    const schema = JSON.parse(readFileSync(path.join(DIR, f), "utf8")) as Record<string, unknown>;
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    const ajv = new Ajv({ strict: false, allowUnionTypes: true });
    const ok = ajv.validateSchema(schema);
    expect(ajv.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
  });
  it("a broken schema is caught by this check", () => {
    const ajv = new Ajv({ strict: false });
    expect(ajv.validateSchema({ type: "objekt" })).toBe(false);
  });
});

describe("generated validators (scripts/gen-validators.mjs)", () => {
  const sources = validatorSources() as Record<string, string>;
  it.each(Object.keys(sources))("%s is current (else: node scripts/gen-validators.mjs)", (file) => {
    const current = readFileSync(path.resolve(import.meta.dirname, "..", file), "utf8");
    expect(current === sources[file], `${file} is stale: run node scripts/gen-validators.mjs`).toBe(true);
  });
  it("every published input and config schema has its generated validator", () => {
    const covered = Object.values(sources).join("\n");
    // judge-reply.schema.json is the schema sent to the judge for its reply (test/providers/schema-dialects.test.ts)
    for (const f of files.filter((x) => x !== "judge-reply.schema.json")) expect(covered).toContain(`schemas/${f}`);
  });
});
