/** Which judges go through the Batch API (`batchCapable`, src/providers/batch-api.ts). */
import { describe, expect, it } from "vitest";
import { batchCapable } from "../../src/providers/batch-api.js";

describe("batchCapable", () => {
  it("defaults to the OpenAI API itself; the config flag wins", () => {
    expect(batchCapable({})).toBe(true);
    expect(batchCapable({ base_url: "https://api.openai.com/v1" })).toBe(true);
    expect(batchCapable({ base_url: "https://openrouter.ai/api/v1" })).toBe(false);
    expect(batchCapable({ base_url: "http://127.0.0.1:8000/v1", batch: true })).toBe(true);
    expect(batchCapable({ batch: false })).toBe(false);
  });
});
