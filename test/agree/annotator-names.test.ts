/** Annotator names as typed (red team 35b F3): NFC, look-alikes, and how two differ. */
import { describe, expect, it } from "vitest";
import { howTheyDiffer, lookAlike, lookAlikePairs, nameKey, nfcName, shownName } from "../../src/agree/annotator-names.js";
import { showInvisibleExactly } from "../../src/format/invisible.js";

describe("annotator names", () => {
  it("NFC makes a composed and a decomposed name one", () => {
    expect(nfcName(" Zoe\u0308 ")).toBe("Zo\u00eb");
    expect(lookAlike("Zo\u00eb", "Zoe\u0308")).toBe(false); // equal as kept: not a look-alike, the same name
  });
  it("names equal after NFKC, case folding and removing invisible characters are look-alikes", () => {
    expect(nameKey("ALI\u200bCE")).toBe("alice");
    expect(nameKey("\uff41lice")).toBe("alice");
    expect(lookAlikePairs(["alice", "bob", "ali\u200bce", "Bob", "carol"])).toEqual([["alice", "ali\u200bce"], ["bob", "Bob"]]);
    expect(howTheyDiffer("alice", "ali\u200bce")).toBe("invisible characters or spaces");
    expect(howTheyDiffer("bob", "Bob")).toBe("letter case");
    expect(howTheyDiffer("alice", "\uff41lice")).toMatch(/^compatibility forms/);
  });
  it("shows invisible characters as markers, one to one", () => {
    expect(showInvisibleExactly("a\u200bb\u202ec\ufeffd")).toBe("a⟨U+200B⟩b⟨U+202E⟩c⟨U+FEFF⟩d");
    expect(showInvisibleExactly("⟨U+200B⟩")).toBe("⟨U+27E8⟩U+200B⟩");
    expect(shownName("ali\u200bce")).toBe('"ali⟨U+200B⟩ce"');
  });
});
