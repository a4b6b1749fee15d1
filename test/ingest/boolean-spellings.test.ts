/**
 * Red team: the `boolean_string` warning named only the first spelling it met ("false") when a file also wrote
 * "False" and "0.0": each distinct spelling is named, with its own count.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestWarning } from "../../src/ingest/index.js";

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-boolspell-"));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function warningsOf(f: string): Promise<IngestWarning[]> {
  const out: IngestWarning[] = [];
  for await (const it of readTrajectories([f], { onWarning: (w) => out.push(w) })) if (it.kind === "error") throw new Error(it.error.message);
  return out;
}

describe("boolean_string names each distinct spelling", () => {
  const msgs = [{ role: "user", content: "hi" }];
  it("in reference: false, False (twice) and 0.0 are three warnings with their counts", async () => {
    const f = path.join(dir, "ref.jsonl");
    const rows = ["false", "False", "False", "0.0"].map((v, i) => ({ id: `r${i}`, messages: msgs, attack: "x", reference: { security: v } }));
    fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const w = (await warningsOf(f)).filter((x) => x.kind === "boolean_string");
    expect(w.map((x) => x.count)).toEqual([1, 2, 1]);
    expect(w[0].message).toContain(`"security" given as "false"`);
    expect(w[1].message).toContain(`"security" given as "False"`);
    expect(w[2].message).toContain(`"security" given as "0.0"`);
  });
  it("in a top-level or metadata verdict key and for ambiguous values alike", async () => {
    const f = path.join(dir, "top.jsonl");
    const rows = [
      { id: "a", messages: msgs, attack: "x", attack_success: "yes" },
      { id: "b", messages: msgs, attack: "x", attack_success: "Y" },
      { id: "c", messages: msgs, attack: "x", attack_success: "maybe" },
      { id: "d", messages: msgs, attack: "x", attack_success: "unclear" },
    ];
    fs.writeFileSync(f, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    const ws = await warningsOf(f);
    expect(ws.filter((x) => x.kind === "boolean_string").map((x) => x.message.match(/given as ("[^"]*")/)![1])).toEqual(['"yes"', '"Y"']);
    expect(ws.filter((x) => x.kind === "boolean_ambiguous").map((x) => x.message.match(/given as ("[^"]*")/)![1])).toEqual(['"maybe"', '"unclear"']);
  });
  it("a number is named as the number it was, 1e400 as a number too large, never as a quoted string (red team 44 F9)", async () => {
    const f = path.join(dir, "num.jsonl");
    // 1e400 is written by hand: JSON.stringify cannot write it (JSON.parse reads it as Infinity)
    const lines = [
      `{"id":"a","messages":${JSON.stringify(msgs)},"attack":"x","security":1e400}`,
      `{"id":"b","messages":${JSON.stringify(msgs)},"attack":"x","reference":{"security":-1e400}}`,
      `{"id":"c","messages":${JSON.stringify(msgs)},"attack":"x","reference":{"utility":0.5}}`,
      `{"id":"d","messages":${JSON.stringify(msgs)},"attack":"x","attack_success":"0.5"}`,
    ];
    fs.writeFileSync(f, lines.join("\n") + "\n");
    const ws = (await warningsOf(f)).filter((x) => x.kind === "boolean_ambiguous").map((x) => x.message);
    expect(ws).toHaveLength(4);
    expect(ws[0]).toContain(`"security" given as a number too large to represent (such as 1e400: read as Infinity), which does not read as true or false`);
    expect(ws[1]).toContain(`"security" given as a number too large to represent (such as 1e400: read as -Infinity), which does not read`);
    expect(ws[2]).toContain(`"utility" given as the number 0.5, which does not read`);
    // a string that looks like a number stays quoted: the input held a string
    expect(ws[3]).toContain(`"attack_success" given as "0.5", which does not read`);
    expect(ws.join("\n")).not.toContain(`"Infinity"`);
  });
});
