import { describe, expect, it } from "vitest";
import { countText } from "../../src/format/count-text.js";

describe("countText", () => {
  it("agrees the noun with its count (new-user report 31: '1 annotators')", () => {
    expect(countText(1, "annotator")).toBe("1 annotator");
    expect(countText(2, "annotator")).toBe("2 annotators");
    expect(countText(0, "annotator")).toBe("0 annotators");
    expect(countText(1200, "adjudicated label")).toBe("1,200 adjudicated labels");
    expect(countText(3, "person", "people")).toBe("3 people");
  });
});
