/**
 * HTML escaping undone, as one more re-encoding a tool result may apply to the injected text (red team 31 L2: an
 * injection received HTML-escaped, `&quot;`, `&amp;`, `<br>`, read as never received: the entity names and tag names
 * added letters to its skeleton, so a short injection was not found). Applied where the other escape forms (JSON
 * `\n`, YAML `''`) are undone: `looseInjectionForm` (./context.ts) and the exposure skeleton
 * (`../verdict/exposure.ts`), on both the injected text and the parts, so a text that is not HTML reads as before.
 */

/** Named entities decoded (the ones HTML escaping writes, and the common typographic ones). */
const NAMED: Readonly<Record<string, string>> = {
  quot: '"',
  amp: "&",
  lt: "<",
  gt: ">",
  apos: "'",
  nbsp: " ",
  ndash: "-",
  mdash: "-",
  lsquo: "'",
  rsquo: "'",
  ldquo: '"',
  rdquo: '"',
  hellip: "...",
};

/**
 * Formatting tags of HTML that carry no text (a line break, a paragraph, emphasis, a link's markup): removed, with
 * their attributes. Other angle-bracket text (`<INFORMATION>`, `<attacker@evil.com>`) is kept: it may be the
 * injection's own text.
 */
const TAG = /<\/?(?:br|p|div|span|b|i|u|em|strong|small|big|font|a|li|ul|ol|hr|h[1-6]|table|thead|tbody|tr|td|th|pre|code|blockquote|sup|sub|center|html|body|head)(?:\s[^<>]*)?\/?>/gi;
const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));/gi;

/**
 * `text` with HTML entities decoded (named ones of {@link NAMED}, decimal and hex character references) and
 * formatting tags ({@link TAG}) replaced by a space; unchanged (the same string) when it holds no `&` or `<`. An
 * unknown entity or a reference outside Unicode is kept as written. One pass: `&amp;quot;` gives `&quot;`.
 */
export function htmlDecoded(text: string): string {
  if (!text.includes("&") && !text.includes("<")) return text;
  return text.replace(TAG, " ").replace(ENTITY, (m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return Object.hasOwn(NAMED, name.toLowerCase()) ? NAMED[name.toLowerCase()] : m;
    const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : m;
  });
}
