// An integer option takes decimal digits only: Number() also read "1e1" as 10, "0x2" as 2 and "" as 0 (red team 36:
// `committee --quorum 1e1` and `--quorum 0x2` were accepted).
import { describe, expect, it } from "vitest";
import { intOption } from "../../src/cli/util.js";
import { UsageError } from "../../src/errors.js";

describe("intOption", () => {
  it("reads decimal integers at or above the minimum, and numbers as they are", () => {
    expect(intOption("12", "--n")).toBe(12);
    expect(intOption("+3", "--n")).toBe(3);
    expect(intOption(5, "--n", 1)).toBe(5);
  });
  it("refuses exponents, hex, blanks, spaces, fractions and values below the minimum, naming the option", () => {
    for (const bad of ["1e1", "0x2", "", " 3", "3 ", "1.5", "abc", "0"]) {
      expect(() => intOption(bad, "--quorum", 1)).toThrow(UsageError);
      expect(() => intOption(bad, "--quorum", 1)).toThrow(`--quorum must be an integer >= 1, not "${bad}"`);
    }
  });
});
