/**
 * `label --json` stopped at once by a second SIGTERM (Ctrl-C again) prints the same `{"error": {"kind": "interrupted"}}`
 * object as a stop before reading (break54 finding 6: stdout was empty, a script reading --json got a parse error),
 * and says on stderr what is kept. The loopback server holds every reply after the 6th, so the second signal comes
 * while requests are in flight.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, startHeldServer, type HeldServer } from "../helpers/held-label.js";

let h: HeldServer;
beforeAll(async () => {
  h = await startHeldServer(6, "ipi-json-second-");
});
afterAll(() => h.close());

describe("label --json: a second stop", () => {
  it("stdout holds the interrupted JSON error; stderr says the verdicts stored are kept", async () => {
    const label = h.start([...h.args("j"), "--json"]);
    const verdicts = path.join(h.labels, "j", "verdicts.jsonl");
    const stored = () => (fs.existsSync(verdicts) ? fs.readFileSync(verdicts, "utf8").split("\n").filter(Boolean).length : 0);
    while ((stored() < 6 || h.fake.requests.length < 8) && label.child.exitCode === null) await sleep(5);
    label.child.kill("SIGTERM");
    while (!/stopping/.test(label.stderr()) && label.child.exitCode === null) await sleep(5);
    label.child.kill("SIGTERM");
    expect(await label.done).toBe(130);
    const out = JSON.parse(label.stdout());
    expect(out.error.kind).toBe("interrupted");
    expect(out.error.exit_code).toBe(130);
    expect(out.error.message).toMatch(/^stopped at once by a second Ctrl-C or SIGTERM: the verdicts stored so far are kept/);
    expect(label.stderr()).toContain("ipi-judge: stopped at once by a second Ctrl-C or SIGTERM");
    h.release();
  }, 120_000);
});
