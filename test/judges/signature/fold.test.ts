import { describe, expect, it } from "vitest";
import { foldConfusablesNorm, foldTypography } from "../../../src/judges/signature/fold.js";

describe("foldTypography / foldConfusablesNorm (hostile54 finding 1)", () => {
  it("folds the characters values are written in, keeps case, quotes and line breaks", () => {
    expect(foldTypography("US13\u20093000\u20073000\u00a0x")).toBe("US13 3000 3000 x");
    expect(foldTypography("a\u2013b\u2011c\u2212d")).toBe("a-b-c-d");
    expect(foldTypography("ＵＳ１３ ③⓪ 𝟏𝟐 ｗｗｗ．ｘ．ｃｏｍ／ｐ ｍ＠ｘ")).toBe("US13 30 12 www.x.com/p m@x");
    expect(foldTypography("\u201cquoted\u201d \u2018x\u2019 \u2026\nnext")).toBe("\u201cquoted\u201d \u2018x\u2019 \u2026\nnext");
    expect(foldTypography("plain ASCII")).toBe("plain ASCII");
  });

  it("reads look-alike letters as Latin only in a token that mixes scripts; У has a second reading", () => {
    expect(foldTypography("Qu\u0430nji")).toBe("Quanji");
    expect(foldTypography("\u0423S13")).toBe("YS13");
    expect(foldTypography("\u0423S13", true)).toBe("US13");
    expect(foldTypography("Скажите привет")).toBe("Скажите привет");
    expect(foldConfusablesNorm("qu\u0430nji \u0441\u043e\u0440")).toBe("quanji \u0441\u043e\u0440");
    expect(foldConfusablesNorm("ascii")).toBe("ascii");
  });
});
