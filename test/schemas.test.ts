/**
 * Every JSON Schema published in `schemas/` is a valid draft-07 schema. The readers compile them with ajv's
 * `validateSchema: false` (compiling the meta-schema in every process cost ~60-200 ms of start-up), so the check
 * against the meta-schema happens here, once, for every file.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";

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
