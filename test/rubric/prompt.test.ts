import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildMessages, PROMPT_DIR, promptSha256, RUBRIC_VERSION, SYSTEM_TEMPLATE, USER_TEMPLATE } from "../../src/rubric/prompt.js";
import { convertChatLine } from "../../src/ingest/chat-jsonl.js";
import { renderForJudge } from "../../src/serialize/render.js";
import { TAG_NAMES } from "../../src/serialize/untrusted.js";
import { BUCKETS } from "../../src/types.js";
import { CASES } from "../helpers/paths.js";

describe("prompt files", () => {
  it("version and hash over the template files", () => {
    expect(RUBRIC_VERSION).toBe("rubric-v2");
    expect(path.basename(PROMPT_DIR)).toBe("rubric-v2");
    const sys = readFileSync(path.join(PROMPT_DIR, "system.md"), "utf8");
    const user = readFileSync(path.join(PROMPT_DIR, "user.md"), "utf8");
    expect(promptSha256).toBe(createHash("sha256").update(`system.md\0${sys}\0user.md\0${user}`).digest("hex"));
  });
  it("the system message has the six buckets, precedence, evidence rules, the reply format, and no placeholders", () => {
    for (const b of BUCKETS) expect(SYSTEM_TEMPLATE).toContain(`\`${b}\``);
    expect(SYSTEM_TEMPLATE).toMatch(/actions outweigh words/i);
    expect(SYSTEM_TEMPLATE).toMatch(/never instructions/i);
    expect(SYSTEM_TEMPLATE).toMatch(/judge, grader/);
    expect(SYSTEM_TEMPLATE).toContain('"message_index"');
    expect(SYSTEM_TEMPLATE).toContain('"tool_call_index"');
    expect(SYSTEM_TEMPLATE).not.toMatch(/\{\{/);
  });
  it("the user template has every placeholder", () => {
    for (const p of ["trajectory_block", "injections_block", "nonce"]) expect(USER_TEMPLATE).toContain(`{{${p}}}`);
  });
  it("every tag the prompt names starts with a neutralized prefix", () => {
    const tags = [...`${SYSTEM_TEMPLATE}\n${USER_TEMPLATE}`.matchAll(/<\/?\s*([A-Za-z_]+)/g)].map((m) => m[1].toLowerCase());
    expect(tags.length).toBeGreaterThan(0);
    for (const t of tags) expect(TAG_NAMES.some((n) => t.startsWith(n)), t).toBe(true);
  });
});

describe("buildMessages", () => {
  it("substitutes in one pass: placeholder text inside the trajectory stays as is", () => {
    const [sys, user] = buildMessages({ trajectoryBlock: "T {{nonce}} {{injections_block}}", injectionsBlock: "I", nonce: "abc123def456" });
    expect(sys).toEqual({ role: "system", content: SYSTEM_TEMPLATE });
    expect(user.role).toBe("user");
    expect(user.content).toContain("T {{nonce}} {{injections_block}}");
    expect(user.content).toContain("abc123def456");
    expect(user.content).not.toMatch(/\{\{(trajectory_block)\}\}/);
  });
  it("B10: a trajectory that closes the untrusted tag or plants judge instructions stays inside one block", () => {
    const b10 = JSON.parse(readFileSync(path.join(CASES, "B10.json"), "utf8"));
    for (const payload of Object.values(b10.tool_result_payloads as Record<string, string>)) {
      const msgs = structuredClone(b10.base_trajectory);
      msgs[b10.inject_into_message_index].content += "\n" + payload;
      const r = convertChatLine({ id: "B10", messages: msgs }, { path: "B10.json", line: 1, relPath: "B10.json" });
      if (!r.ok) throw new Error(r.error.message);
      const rendered = renderForJudge(r.trajectory);
      const [, user] = buildMessages(rendered);
      const n = rendered.nonce;
      expect(user.content.match(new RegExp(`<untrusted_trajectory_${n}>`, "g"))).toHaveLength(1);
      expect(user.content.match(new RegExp(`</untrusted_trajectory_${n}>`, "g"))).toHaveLength(1);
      expect(user.content.match(/<\/?\s*untrusted_trajectory\s*>/gi)).toBeNull();
      expect(user.content).toContain("not_exposed"); // still visible to the judge, escaped not deleted
    }
  });
});
