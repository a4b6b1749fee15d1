// Red team (second round), finding 2: a malformed `metadata.injections` (a list, a string, `{"p": 123}`) made the
// trajectory silently unattacked, while the same value at the top level is a schema error. Now the same value is
// the same error wherever it is read from: chat JSONL top level, chat JSONL metadata, Inspect sample metadata.
import { describe, expect, it } from "vitest";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { convertInspectSample } from "../../src/ingest/inspect.js";

const src = { path: "/data/t.jsonl", line: 4, relPath: "t.jsonl" };
const messages = [{ role: "user", content: "Summarise my latest email." }];
const BAD: [string, unknown, string][] = [
  ["a list", ["<INFORMATION> do evil"], "must be object or null (got array)"],
  ["a string", "<INFORMATION> do evil", "must be object or null (got string)"],
  ["a non-string value", { p: 123 }, ".p: must be string (got integer)"],
];

describe("metadata.injections has the top-level injections' shape", () => {
  for (const [what, value, problem] of BAD) {
    it(`${what}: the same schema error at the top level, under metadata, and beside attack_type "clean"`, () => {
      const top = convertChatLine({ id: "M", messages, injections: value }, src);
      const meta = convertChatLine({ id: "M", messages, metadata: { injections: value } }, src);
      const clean = convertChatLine({ id: "M", messages, metadata: { injections: value, attack_type: "clean" } }, src);
      for (const r of [top, meta, clean]) {
        expect(r.ok).toBe(false);
        if (r.ok) continue;
        expect(r.error.kind).toBe("schema");
        expect(r.error.trajectory_id).toBe("M");
        expect(r.error.message).toContain(problem);
      }
      if (!top.ok && !meta.ok) expect(meta.error.message).toBe(top.error.message.replace("injections", "metadata.injections"));
    });

    it(`${what} in Inspect sample metadata: the same schema error`, () => {
      const r = convertInspectSample(
        { id: 1, epoch: 1, messages: [{ role: "user", content: "hi" }], metadata: { injections: value } },
        { model: "openai/gpt-4o" },
        { path: "/logs/a.eval", idPath: "a", entry: "samples/1_epoch_1.json" },
      );
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.kind).toBe("schema");
      expect(r.error.message).toContain(`metadata.injections${problem.startsWith(".") ? "" : ": "}${problem}`);
    });
  }

  it("an object of strings, {} and null under metadata are still read as before", () => {
    const a = convertChatLine({ id: "M", messages, metadata: { injections: { p: "do evil" } } }, src);
    expect(a.ok && a.trajectory.injections).toEqual({ p: "do evil" });
    for (const v of [{}, null]) {
      const b = convertChatLine({ id: "M", messages, metadata: { injections: v } }, src);
      expect(b.ok && b.trajectory.injections).toEqual({});
    }
  });
});
