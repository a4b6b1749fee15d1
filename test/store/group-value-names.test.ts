/**
 * A `metadata.<key>` value used as a group key (`compare --by`, `estimate --by`, the report) loses its invisible and
 * control characters as ingest's group names do: `spot\u200blight` and `spotlight` are one group, said once as
 * `name_normalized` with both spellings. Named top-level fields are read as stored.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { conditionValue } from "../../src/store/row-field.js";
import { clearNormalizedGroupValues } from "../../src/store/group-value-names.js";
import { clearJournalSkips, takeJournalWarnings } from "../../src/store/skipped-lines.js";
import type { TrajectoryIndexRow } from "../../src/store/records.js";

const row = (metadata: Record<string, unknown>, extra: Partial<TrajectoryIndexRow> = {}) =>
  ({ id: "t", content_sha256: "h", attacked: true, n_messages: 2, source: { format: "chat-jsonl", path: "/x.jsonl" }, metadata, ...extra }) as TrajectoryIndexRow;

beforeEach(() => {
  clearJournalSkips();
  clearNormalizedGroupValues();
});

describe("conditionValue: metadata group values", () => {
  it("zero-width, bidi controls and NUL are removed: one group, said once per field with the spellings", () => {
    expect(conditionValue(row({ defense: "spot\u200blight" }), "metadata.defense")).toBe("spotlight");
    expect(conditionValue(row({ defense: "spotlight" }), "metadata.defense")).toBe("spotlight");
    expect(conditionValue(row({ defense: "spot\u0000light" }), "metadata.defense")).toBe("spotlight");
    expect(conditionValue(row({ a: { b: "x\u202ey" } }), "metadata.a.b")).toBe("xy");
    expect(conditionValue(row({ defense: "\u200b" }), "metadata.defense")).toBeUndefined(); // nothing left: no value
    const w = takeJournalWarnings();
    expect(w).toHaveLength(2);
    expect(w[0]).toBe(
      'name_normalized: metadata.defense values (3) "spot⟨U+200B⟩light" read as "spotlight", "spot\\u0000light" read as "spotlight", "⟨U+200B⟩" read as "": ' +
        "invisible or control characters (zero-width, bidi controls, NUL) removed, as ingest does for model, suite, condition and attack names, " +
        "so they group with the same name written without them, not as another group that prints alike (the stored rows are not rewritten)",
    );
    expect(w[1]).toMatch(/^name_normalized: metadata\.a\.b value "x⟨U\+202E⟩y" read as "xy"/);
    conditionValue(row({ defense: "spot\u200blight" }), "metadata.defense");
    expect(takeJournalWarnings()).toEqual([]); // the same spelling again: said once
  });

  it("named fields are read as stored (ingest normalizes them), and a clean value says nothing", () => {
    expect(conditionValue(row({}, { condition: "spotlight" }), "condition")).toBe("spotlight");
    expect(conditionValue(row({ defense: "plain" }), "metadata.defense")).toBe("plain");
    expect(takeJournalWarnings()).toEqual([]);
  });
});

describe("a metadata group value that is an object or array (break45)", () => {
  it("is no value, said once per field and kind, from a whole row and from a column projection alike", async () => {
    const { rowProjector } = await import("../../src/store/row-projection.js");
    expect(conditionValue(row({ k: { a: 1 } }), "metadata.k")).toBeUndefined();
    expect(conditionValue(row({ k: [1, 2] }), "metadata.k")).toBeUndefined();
    expect(conditionValue(row({ k: 7 }), "metadata.k")).toBe("7");
    expect(conditionValue(row({}), "metadata.k")).toBeUndefined(); // missing: nothing to say
    const w = takeJournalWarnings();
    expect(w).toHaveLength(2);
    expect(w[0]).toMatch(/^group_value_not_scalar: metadata\.k holds an object on some trajectories, not a string or number: such a trajectory counts as having no value of metadata\.k \(estimate --by: the \(none\) group/);
    expect(w[1]).toMatch(/^group_value_not_scalar: metadata\.k holds an array on some trajectories/);
    clearJournalSkips();
    clearNormalizedGroupValues();
    const p = rowProjector(["metadata.m"])(row({ m: [1] }));
    expect(takeJournalWarnings()).toEqual([]); // the projection keeps the kind only: said when read, as on the whole row
    expect(conditionValue(p as TrajectoryIndexRow, "metadata.m")).toBeUndefined();
    expect(takeJournalWarnings()).toEqual([expect.stringMatching(/^group_value_not_scalar: metadata\.m holds an array on some trajectories/)]);
  });
});
