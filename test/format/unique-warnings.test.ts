/** One warning per distinct fact, with a count (session 39): exact repeats collapse, in first-seen order. */
import { describe, expect, it } from "vitest";
import { uniqueWarnings } from "../../src/format/unique-warnings.js";

describe("uniqueWarnings", () => {
  it("keeps the first-seen order, each text once, a repeat counted on it", () => {
    expect(uniqueWarnings(["a", "b", "a", "c", "a"])).toEqual(["a (given 3 times: said once)", "b", "c"]);
    expect(uniqueWarnings([])).toEqual([]);
    expect(uniqueWarnings(["x", "y"])).toEqual(["x", "y"]);
  });
});
