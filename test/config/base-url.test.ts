/**
 * A `base_url` the URL parser takes but repairs or reads otherwise is refused when the config is read (red team 37b
 * F5: `http://127.0.0.1:/v1`, an empty port, was taken and the requests went to port 80): an empty port, port 0 or
 * over 65535, no host, white space. Valid forms (a port, none, IPv6, a path) pass. The message names the judge and
 * the field, never the value (it may hold a credential).
 */
import { describe, expect, it } from "vitest";
import { baseUrlProblem, JudgesConfigError, parseJudgesConfig } from "../../src/config/judges.js";

const cfg = (base_url: string) => ({ judges: [{ id: "a", model: "m", family: "x", base_url }] });

function refusal(base_url: string): string {
  try {
    parseJudgesConfig(cfg(base_url), "judges.json");
  } catch (e) {
    expect(e).toBeInstanceOf(JudgesConfigError);
    return (e as Error).message;
  }
  throw new Error(`accepted: ${base_url}`);
}

describe("malformed base_url refused when the config is read", () => {
  const bad: [string, RegExp][] = [
    ["http://127.0.0.1:/v1", /judges\[0\] \("a"\)\.base_url has a ':' with no port after it/],
    ["http://[::1]:/v1", /no port after it/],
    ["http://127.0.0.1:0/v1", /has port 0: a port is 1 to 65535/],
    ["http://127.0.0.1:70000/v1", /base_url is not a valid URL \(port 70000: a port is 1 to 65535\)/],
    ["http:///v1", /has no host/],
    ["http://127.0.0.1:8000/v 1", /white space/],
    [" http://127.0.0.1:8000/v1", /must match pattern "\^https\?:\/\/"/], // the schema refuses it first
    ["http://127.0.0.1:8000/v1\n", /white space/],
    ["http://a b/v1", /not a valid URL/],
    // verifier 37: sent to port 80, and to /chat/completions?x%2Fv1=
    ["http://127.0.0.1:080/v1", /has port 080 written with a leading zero \(it would be read as port 80\)/],
    ["http://127.0.0.1:08000/v1", /leading zero/],
    ["http://127.0.0.1:8000?x/v1", /a query the client would rewrite \(a parameter with a '\/' in its name: a path written after the '\?'/],
    ["http://127.0.0.1:8000/v1?x/v1", /a '\/' in its name/],
    ["http://127.0.0.1:8000/v1?api-version", /query the client would rewrite \(a parameter with no '='/],
    ["http://127.0.0.1:8000/v1?api-version=1&beta", /with no '='/],
  ];
  for (const [url, re] of bad)
    it(JSON.stringify(url), () => {
      const m = refusal(url);
      expect(m).toMatch(re);
      expect(m).not.toContain(url.trim());
    });

  it("valid forms pass", () => {
    for (const url of ["http://127.0.0.1:8000/v1", "https://openrouter.ai/api/v1", "http://[::1]:11434/v1", "http://localhost/v1", "https://api.example.com:65535/v1?api-version=1",
      "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21", "http://127.0.0.1:8000?api-version=1&a=b/c", "http://127.0.0.1:10/v1"]) {
      expect(baseUrlProblem(url)).toBeUndefined();
      expect(parseJudgesConfig(cfg(url)).judges[0].base_url).toBe(url);
    }
  });

  it("credentials in a malformed base_url are never repeated in the message", () => {
    const m = refusal("http://user:hunter2@127.0.0.1:/v1");
    expect(m).not.toContain("hunter2");
  });
});
