// New user 49 item 5: docs/trying-llm-judges.md said a judge whose server never answers "is stopped after 3 items";
// the tool stops it once one request has been tried `unreachableTries` (2) times. The doc's figures are read here
// against the constants the code uses, so the two cannot drift apart again.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TRANSPORT_DEFAULTS } from "../../src/providers/send.js";
import { LOST_ENDPOINT } from "../../src/judges/lost-endpoint.js";

const doc = readFileSync(new URL("../../docs/trying-llm-judges.md", import.meta.url), "utf8").replace(/\s+/g, " ");

describe("docs/trying-llm-judges.md states the tool's stop rules", () => {
  it("a judge that never answered and cannot be reached: stopped after unreachableTries tries of one request, as the tool's message says", () => {
    expect(doc).toContain(`is stopped as soon as one request has been tried ${TRANSPORT_DEFAULTS.unreachableTries} times`);
    expect(doc).toContain(`${TRANSPORT_DEFAULTS.unreachableTries} request(s) failed and judge "ID" never had an answer`);
    expect(doc).not.toMatch(/stopped after 3 items/);
  });

  it("a server lost mid-run: warned and stopped at the lost-endpoint thresholds", () => {
    expect(doc).toContain(`warned about after ${LOST_ENDPOINT.warnItems} items in a row and stopped after ${LOST_ENDPOINT.stopItems} and ${LOST_ENDPOINT.stopMs / 60_000} minutes`);
  });
});
