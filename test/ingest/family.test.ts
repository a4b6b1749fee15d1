import { describe, expect, it } from "vitest";
import { familyOf } from "../../src/ingest/family.js";

describe("familyOf", () => {
  const table: Array<[string, string]> = [
    ["gpt-4o-2024-05-13", "openai"],
    ["gpt-4o-mini", "openai"],
    ["chatgpt-4o-latest", "openai"],
    ["o1-preview", "openai"],
    ["o3-mini-2025-01-31", "openai"],
    ["o4-mini", "openai"],
    ["openai/gpt-oss-120b", "openai"],
    ["claude-3-5-sonnet-20240620", "anthropic"],
    ["us.anthropic.claude-3-7-sonnet-20250219-v1:0", "anthropic"],
    ["gemini-1.5-pro-001", "google"],
    ["google/gemma-2-27b-it", "google"],
    ["meta-llama_Llama-3.3-70B-Instruct", "meta"],
    ["meta-llama/Llama-3.1-8B-Instruct", "meta"],
    ["llama3.1:70b", "meta"],
    ["Qwen/Qwen2.5-72B-Instruct", "qwen"],
    ["qwq-32b", "qwen"],
    ["mistral-large-latest", "mistral"],
    ["mixtral-8x22b", "mistral"],
    ["codestral-2501", "mistral"],
    ["deepseek-chat", "deepseek"],
    ["deepseek-r1-distill-llama-70b", "deepseek"],
    ["command-r-plus", "cohere"],
    ["grok-2-1212", "xai"],
    ["phi-4", "microsoft"],
    ["microsoft/Phi-3-mini-4k-instruct", "microsoft"],
  ];
  it.each(table)("%s -> %s", (model, family) => {
    expect(familyOf(model)).toBe(family);
  });

  it("returns undefined for unknown or empty names, never a guess", () => {
    expect(familyOf("local")).toBeUndefined();
    expect(familyOf("my-own-model")).toBeUndefined();
    expect(familyOf("")).toBeUndefined();
    expect(familyOf(undefined)).toBeUndefined();
    expect(familyOf(null)).toBeUndefined();
  });

  it("does not match short tokens inside other words", () => {
    expect(familyOf("dolphin-2.9")).toBeUndefined(); // has "phi" inside
    expect(familyOf("commander-x")).toBeUndefined(); // "command" inside a word
    expect(familyOf("solo1")).toBeUndefined(); // "o1" inside a word
  });
});
