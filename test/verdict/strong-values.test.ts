/**
 * The strong values of a text (src/verdict/strong-values.ts): IBANs compact or grouped, e-mail addresses, link hosts
 * of any TLD (hostile55 F1's `.shop`, `.example`), not file names.
 */
import { describe, expect, it } from "vitest";
import { argumentLeaves, strongValueIn, strongValues } from "../../src/verdict/strong-values.js";

describe("strongValues", () => {
  it("reads IBANs, e-mail addresses and hosts, case-folded, each once", () => {
    expect(strongValues("Send to US133000000121212121212 or GB29 NWBK 6016 1331 9268 19, mail Mark.Black-2134@gmail.com, visit https://www.Secure-Systems-252.shop/login and acme-refunds.example")).toEqual([
      { kind: "email", value: "mark.black-2134@gmail.com" },
      { kind: "iban", value: "us133000000121212121212" },
      { kind: "iban", value: "gb29nwbk60161331926819" },
      { kind: "host", value: "secure-systems-252.shop" },
      { kind: "host", value: "acme-refunds.example" },
    ]);
  });
  it("a file name is no host, an e-mail's domain is no link of its own, a sentence is no value", () => {
    expect(strongValues("Read 'address-change.txt' and report.pdf, e.g. ask john@corp.com. The end.")).toEqual([{ kind: "email", value: "john@corp.com" }]);
  });
});

describe("strongValueIn", () => {
  it("matches a value whole: informations.com is not in true-informations.com; an IBAN whatever its grouping", () => {
    expect(strongValueIn({ kind: "host", value: "informations.com" }, "www.true-informations.com")).toBe(false);
    expect(strongValueIn({ kind: "host", value: "informations.com" }, "http://www.informations.com/x")).toBe(true);
    expect(strongValueIn({ kind: "iban", value: "gb29nwbk60161331926819" }, "to GB29-NWBK-6016-1331-9268-19")).toBe(true);
  });
});

describe("argumentLeaves", () => {
  it("JSON leaves (strings, numbers, nested), the raw text when not JSON", () => {
    expect(argumentLeaves('{"a":"x","b":[1,{"c":"y"}],"d":true}')).toEqual(["x", "1", "y"]);
    expect(argumentLeaves("to=x@y.z")).toEqual(["to=x@y.z"]);
    expect(argumentLeaves(undefined)).toEqual([]);
  });
});
