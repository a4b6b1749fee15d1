import { describe, expect, it } from "vitest";
import { rowProjector } from "../../src/store/row-projection.js";
import { conditionValue } from "../../src/store/row-field.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";

// rows as JSON.parse reads them (a "__proto__" key is an own property there)
const rows: TrajectoryIndexRow[] = [
  '{"id":"a","suite":"s","metadata":{"defense":"spotlight","duration":1.5,"ok":true,"n":0}}',
  '{"id":"b","suite":"s","metadata":{"defense":"spot\\u200blight","duration":2.5}}',
  '{"id":"c","metadata":{"defense":null,"duration":"","nested":{"k":"v"},"list":["x"]}}',
  '{"id":"d","metadata":["defense"]}',
  '{"id":"e","metadata":null}',
  '{"id":"f"}',
  '{"id":"g","metadata":{"__proto__":"polluted","constructor":"c","hasOwnProperty":"h"}}',
  '{"id":"h","metadata":{"a":{"b":{"c":"deep"}}},"attacked":true}',
  '{"id":"i","metadata":"a string","suite":""}',
].map((l) => JSON.parse(l));

const FIELDS = ["metadata.defense", "metadata.duration", "metadata.ok", "metadata.n", "metadata.nested", "metadata.list", "metadata.__proto__", "metadata.constructor", "metadata.hasOwnProperty", "metadata.a.b.c", "metadata.a.b", "metadata.missing", "metadata.a.x.y"];

describe("row projection (compare --by metadata.KEY on columns)", () => {
  it("conditionValue reads from the projection what it reads from the whole row, hostile keys included", () => {
    for (const f of FIELDS) {
      const project = rowProjector(["suite", "attacked", f]);
      for (const r of rows) {
        const p = project(r) as TrajectoryIndexRow;
        expect(conditionValue(p, f), `${r.id} ${f}`).toBe(conditionValue(r, f));
        expect(p.suite).toBe(r.suite);
        expect(Object.prototype.hasOwnProperty.call(p, "id")).toBe(false);
      }
    }
    // no prototype was changed by a "__proto__" key
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const p = rowProjector(["metadata.__proto__"])(rows[6]) as unknown as { metadata: object };
    expect(Object.getPrototypeOf(p.metadata)).toBe(Object.prototype);
    expect(JSON.stringify(p)).toBe('{"metadata":{"__proto__":"polluted"}}');
  });

  it("keeps only the asked value: rows with values unique to each row project to the same record", () => {
    const project = rowProjector(["suite", "metadata.defense"]);
    expect(JSON.stringify(project(rows[0]))).toBe('{"suite":"s","metadata":{"defense":"spotlight"}}');
    // an object or array value, which conditionValue reads as no value, is kept as an empty one of its kind (not the
    // object: no record per value), shared, so conditionValue still says it (group_value_not_scalar, break45)
    expect(JSON.stringify(rowProjector(["metadata.nested"])(rows[2]))).toBe('{"metadata":{"nested":{}}}');
    expect(JSON.stringify(rowProjector(["metadata.list"])(rows[2]))).toBe('{"metadata":{"list":[]}}');
    // two paths under one key share it; a path the row does not reach adds nothing
    expect(JSON.stringify(rowProjector(["metadata.defense", "metadata.duration", "metadata.zz"])(rows[1]))).toBe('{"metadata":{"defense":"spot\u200blight","duration":2.5}}');
    expect(JSON.stringify(rowProjector(["metadata.defense"])(rows[5]))).toBe("{}");
  });

  it("a dotted path under a field asked whole is read from the whole (one copy)", () => {
    const p = rowProjector(["metadata", "metadata.defense"])(rows[0]);
    expect(p).toEqual({ metadata: rows[0].metadata });
  });
});
