/** Annotator names as typed (red team 35b F3): NFC, look-alikes, and how two differ. */
import { describe, expect, it } from "vitest";
import { confusableKey, howTheyDiffer, lookAlike, lookAlikePairs, mixedScriptNote, nameKey, nfcName, shownName } from "../../src/agree/annotator-names.js";
import { nameScripts, skeleton } from "../../src/format/homoglyphs.js";
import { CONFUSABLES_HEX } from "../../src/format/confusables.generated.js";
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
    // a control character (NUL, C0/C1) is invisible too: ali<NUL>ce is alice (red team 39b: accepted as a second person)
    expect(lookAlikePairs(["alice", "ali\u0000ce", "al\u0085ice"])).toEqual([["alice", "ali\u0000ce"], ["alice", "al\u0085ice"]]);
    expect(howTheyDiffer("alice", "ali\u0000ce")).toBe("invisible characters or spaces");
    expect(howTheyDiffer("bob", "Bob")).toBe("letter case");
    expect(howTheyDiffer("alice", "\uff41lice")).toMatch(/^compatibility forms/);
    // names not NFC'd where they enter (rating categories): composition, not compatibility forms (verifier 37 V2.5)
    expect(howTheyDiffer("Zo\u00eb", "Zoe\u0308")).toMatch(/^Unicode composition \(NFC vs NFD/);
    expect(howTheyDiffer("Zo\u00eb", "zoe\u0308")).toMatch(/^Unicode composition .* and letter case$/);
  });
  it("shows invisible characters as markers, one to one", () => {
    expect(showInvisibleExactly("a\u200bb\u202ec\ufeffd")).toBe("a⟨U+200B⟩b⟨U+202E⟩c⟨U+FEFF⟩d");
    expect(showInvisibleExactly("⟨U+200B⟩")).toBe("⟨U+27E8⟩U+200B⟩");
    expect(shownName("ali\u200bce")).toBe('"ali⟨U+200B⟩ce"');
  });
});

describe("homoglyph annotator names (fixM 6)", () => {
  const cyrZoe = "Z\u043e\u0435"; // Latin Z, Cyrillic о and е

  it("a Cyrillic Zое and a Latin Zoe are look-alikes, named by the letters that differ", () => {
    expect(cyrZoe).not.toBe("Zoe");
    expect(confusableKey(cyrZoe)).toBe(confusableKey("Zoe"));
    expect(lookAlike(cyrZoe, "Zoe")).toBe(true);
    expect(lookAlikePairs(["Zoe", "bob", cyrZoe])).toEqual([["Zoe", cyrZoe]]);
    expect(howTheyDiffer("Zoe", cyrZoe)).toBe('letters of another script that look like Latin ones (Cyrillic "\u043e" U+043E, Cyrillic "\u0435" U+0435)');
  });

  it("whole-script look-alikes (Greek capitals, Cyrillic with a diaeresis) and case folding together", () => {
    expect(lookAlike("\u0391\u039d\u039d\u0391", "anna")).toBe(true); // Greek ΑΝΝΑ
    expect(skeleton("Zo\u0451")).toBe(skeleton("Zo\u00eb")); // Cyrillic ё reads as ë
    expect(lookAlike("Zo\u0451", "Zo\u00eb")).toBe(true);
  });

  it("real Cyrillic names stay apart from Latin ones; names unlike as TR39 reads them stay two people", () => {
    expect(lookAlike("\u0417\u043e\u044f", "Zoya")).toBe(false); // Зоя
    expect(lookAlike("alice", "alicia")).toBe(false);
    expect(lookAlike("Ian", "Ivan")).toBe(false);
    expect(lookAlike("Zo\u00eb", "Zoe")).toBe(false); // a diaeresis is no look-alike letter
  });

  // fix 39: Unicode TR39's confusable skeleton, the whole table (every script, Latin look-alikes within Latin)
  it("the table is TR39's: thousands of entries, I and 1 read as l; m stays m and its look-alikes read as m, not rn", () => {
    expect(CONFUSABLES_HEX.join(",").split(",").length).toBeGreaterThan(6000);
    expect(skeleton("I1l")).toBe("lll");
    expect(skeleton("m")).toBe("m");
    expect(skeleton("\u217f")).toBe("m"); // SMALL ROMAN NUMERAL ONE THOUSAND, TR39's "rn"
    expect(skeleton("\u{1d5c6}")).toBe("m"); // MATHEMATICAL SANS-SERIF SMALL M
    expect(lookAlike("A\u217fie", "Amie")).toBe(true);
  });

  // verifier 39: TR39's m -> rn made real, different first names one person, refused at import with no way to keep both
  it.each([
    ["Amie", "Arnie"],
    ["Emie", "Ernie"],
    ["Mami", "Marni"],
    ["Kim", "Kirn"],
  ])("%s and %s stay two people", (a, b) => {
    expect(lookAlike(a, b)).toBe(false);
    expect(lookAlikePairs([a, b])).toEqual([]);
  });

  it("a letter that reads as a letter of a third script is said as such, not as a Latin look-alike", () => {
    expect(lookAlike("\u674e\u529b", "\u674e\u30ab")).toBe(true); // 李力 (Han) and 李カ (Katakana)
    expect(howTheyDiffer("\u674e\u529b", "\u674e\u30ab")).toBe('letters that look like letters of another script (Katakana "\u30ab" U+30AB reads as Han "\u529b" U+529B)');
  });

  it.each([
    ["a\u01c0ice", "alice", /Latin "\u01c0" U\+01C0 reads as "l"/], // LATIN LETTER DENTAL CLICK
    ["\u0435\u0475\u0435", "eve", /Cyrillic "\u0435" U\+0435, Cyrillic "\u0475" U\+0475/], // all Cyrillic еѵе
    ["\u13f4\u13eb\u13f4", "B\u019fB", /Cherokee "\u13f4" U\+13F4, Cherokee "\u13eb" U\+13EB/], // all Cherokee ᏴᏫᏴ: Ꮻ is a barred O (Ɵ)
    ["\u13a0\u13a1\u13a2", "DRT", /Cherokee "\u13a0" U\+13A0/], // all Cherokee ᎠᎡᎢ
    ["\u13fc\u13fb", "bg", /Cherokee "\u13fc" U\+13FC/], // Cherokee small letters whose prototypes are small capitals ʙ ɢ
    ["\u1d0bim", "kim", /small capitals \(Latin "\u1d0b" U\+1D0B\)/], // ᴋim
    ["\u1d0bim", "Kim", /small capitals/],
    ["Ian", "lan", /Latin "I" U\+0049 reads as "l"/],
    ["AI", "Al", /Latin "I" U\+0049 reads as "l"/],
  ])("%s and %s are look-alikes, said with the code points of what differs", (a, b, how) => {
    expect(lookAlike(a, b)).toBe(true);
    expect(lookAlike(b, a)).toBe(true);
    expect(lookAlikePairs([b, "carol", a])).toEqual([[b, a]]);
    expect(howTheyDiffer(a, b)).toMatch(how);
  });

  it("a name mixing scripts is said; one script, or Latin with Han and kana, is not", () => {
    expect(nameScripts(cyrZoe)).toEqual({ scripts: ["Latin", "Cyrillic"], mixed: true });
    expect(nameScripts("\u0417\u043e\u044f").mixed).toBe(false);
    expect(nameScripts("Taro \u5c71\u7530 \u305f\u308d\u3046").mixed).toBe(false);
    expect(mixedScriptNote(cyrZoe, "a.csv row 1")).toBe(
      'a.csv row 1: annotator "Z\u043e\u0435" mixes scripts (Latin, Cyrillic): it may print like a name typed in one script; check that it is the name as the annotator writes it',
    );
    expect(mixedScriptNote("Zoe", "x")).toBeUndefined();
  });
});

