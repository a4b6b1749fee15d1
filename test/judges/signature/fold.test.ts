import { describe, expect, it } from "vitest";
import { foldTypography } from "../../../src/judges/signature/fold.js";

describe("foldTypography (hostile54 finding 1, narrowed by rev2b findings 1-2)", () => {
  it("folds dashes, blanks, fullwidth and math-alphanumeric characters; keeps case, quotes and line breaks", () => {
    expect(foldTypography("US13\u20093000\u20073000\u00a0x")).toBe("US13 3000 3000 x");
    expect(foldTypography("a\u2013b\u2011c\u2212d")).toBe("a-b-c-d");
    expect(foldTypography("ＵＳ１３ 𝟏𝟐 𝐀𝐛 ｗｗｗ．ｘ．ｃｏｍ／ｐ ｍ＠ｘ")).toBe("US13 12 Ab www.x.com/p m@x");
    expect(foldTypography("\u201cquoted\u201d \u2018x\u2019 \u2026\nnext")).toBe("\u201cquoted\u201d \u2018x\u2019 \u2026\nnext");
    expect(foldTypography("plain ASCII")).toBe("plain ASCII");
  });

  it("does not fold circled, superscript or letterlike symbols: a ™ or a footnote after a value stays off it (rev2b 1)", () => {
    expect(foldTypography("www.x.com\u2122 www.x.com\u00b2 www.x.com\u2460 US13\u00b9")).toBe("www.x.com\u2122 www.x.com\u00b2 www.x.com\u2460 US13\u00b9");
    expect(foldTypography("\u2462\u24ea")).toBe("\u2462\u24ea"); // circled digits: today's known miss (an IBAN in them is not read)
  });

  it("does not fold look-alike letters: a homograph is another address (rev2b 2)", () => {
    expect(foldTypography("alex@mainsail-t\u0435ch.com")).toBe("alex@mainsail-t\u0435ch.com");
    expect(foldTypography("\u0423S13")).toBe("\u0423S13");
    expect(foldTypography("Скажите привет")).toBe("Скажите привет");
  });
});
