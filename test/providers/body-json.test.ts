/**
 * The request body as JSON bytes (`src/providers/body-json.ts`): byte-identical to `JSON.stringify(body)` for the
 * bodies `chatRequestBody` builds (and odd ones), and on the wire the same bytes and content type as the `openai`
 * client's own encoding (real client, loopback server).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyJsonEncoder } from "../../src/providers/body-json.js";
import { chatRequestBody, sendChat, type ChatRequest } from "../../src/providers/send.js";
import { SYSTEM_TEMPLATE } from "../../src/rubric/prompt.js";
import { fastCtx, TEST_KEY } from "../helpers/transport-ctx.js";

const req = (user: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: "m",
  messages: [
    { role: "system", content: SYSTEM_TEMPLATE },
    { role: "user", content: user },
  ],
  temperature: 0,
  max_tokens: 512,
  response_format: { type: "json_schema", json_schema: { name: "v", strict: true, schema: { type: "object", properties: { a: { type: "string" } } } } },
  ...extra,
});

describe("bodyJsonEncoder", () => {
  it("equals JSON.stringify on the bodies chatRequestBody builds, call after call", () => {
    const enc = bodyJsonEncoder();
    const users = ['a "quoted" <tag>\n\tline\u2028\u0000', "\ud800 lone surrogate and emoji \u{1f600}", "", "x".repeat(20_000)];
    for (let round = 0; round < 3; round++)
      for (const u of users) {
        const bodies = [
          chatRequestBody(req(u)),
          chatRequestBody(req(u), 1024, "max_completion_tokens"),
          chatRequestBody(req(u, { extra_body: { model: "other", top_p: 0.5, nested: { a: [1, null, "b"] }, skip: undefined } })),
          chatRequestBody(req(u), undefined, "max_tokens", { systemAsUser: true }),
          chatRequestBody(req(u, { temperature: undefined, response_format: undefined })),
          chatRequestBody({ ...req(u), messages: [...req(u).messages, { role: "assistant", content: "{}", reasoning_content: "think" }, { role: "user", content: "again" }] }, 9, "max_tokens", { passReasoning: true }),
        ];
        for (const b of bodies) expect(enc(b).toString("utf8")).toBe(JSON.stringify(b));
      }
  });

  it("equals JSON.stringify on odd shapes and past its memo's size", () => {
    const enc = bodyJsonEncoder();
    const odd: Record<string, unknown>[] = [
      { messages: [undefined, null, 3, "s", [1], { role: "system", content: 5 }, { content: "c", role: "system" }, { role: "system", content: "t", f: () => 1 }] },
      { messages: "not an array", model: undefined, n: Number.NaN, d: new Date(0) },
      { 2: "int key", b: 1, 1: "first" },
      { a: { toJSON: () => undefined }, b: { toJSON: () => "j" }, c: Symbol("s"), messages: [{ role: "user", content: "u", x: { toJSON: () => undefined } }] },
      {},
    ];
    for (const b of odd) expect(enc(b).toString("utf8")).toBe(JSON.stringify(b));
    for (let i = 0; i < 20; i++) {
      const b = { messages: [{ role: "system", content: `rubric ${i % 11}` }, { role: "user", content: `u${i}` }] };
      expect(enc(b).toString("utf8")).toBe(JSON.stringify(b));
    }
  });
});

describe("the body as JSON bytes on the wire", () => {
  let server: http.Server;
  let url = "";
  const seen: { body: Buffer; type: string | undefined; length: string | undefined }[] = [];
  beforeAll(async () => {
    server = http.createServer((rq, rs) => {
      const chunks: Buffer[] = [];
      rq.on("data", (c: Buffer) => chunks.push(c));
      rq.on("end", () => {
        seen.push({ body: Buffer.concat(chunks), type: rq.headers["content-type"], length: rq.headers["content-length"] });
        const payload = JSON.stringify({
          id: "c",
          object: "chat.completion",
          created: 1,
          model: "m",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: '{"label":"x"}', refusal: null } }],
          usage: { prompt_tokens: 10_000, completion_tokens: 5, total_tokens: 10_005 },
        });
        rs.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
        rs.end(payload);
      });
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

  it("sends the bytes and content type the client's own encoder sends", async () => {
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: url, maxRetries: 0 });
    const r = req('é "q" \u{1f600}\n');
    const plain = await sendChat(client, r, fastCtx());
    const text = await sendChat(client, r, { ...fastCtx(), bodyJson: bodyJsonEncoder() });
    expect(text.outcome).toEqual(plain.outcome);
    expect(seen).toHaveLength(2);
    expect(seen[1].body.equals(seen[0].body)).toBe(true);
    expect(seen[1].type).toBe(seen[0].type);
    expect(seen[1].length).toBe(seen[0].length);
    expect(seen[0].body.toString("utf8")).toBe(JSON.stringify(chatRequestBody(r)));
  });
});
