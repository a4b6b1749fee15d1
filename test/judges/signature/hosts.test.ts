import { describe, expect, it } from "vitest";
import { isSharedHost } from "../../../src/judges/signature/hosts.js";

describe("isSharedHost (hostile54 finding 3)", () => {
  it("link shorteners and common sites are shared; an attacker's own domain is not", () => {
    expect(isSharedHost("bit.ly")).toBe(true);
    expect(isSharedHost("www.github.com")).toBe(true);
    expect(isSharedHost("docs.google.com")).toBe(true);
    expect(isSharedHost("my-website-234.com")).toBe(false);
    expect(isSharedHost("secure-systems-252.com")).toBe(false);
  });
});
