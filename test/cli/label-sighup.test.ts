/**
 * SIGHUP (an ssh session dropped) stops label as SIGTERM and Ctrl-C do (red team 37: it ended as kill -9 does, exit
 * 129 with the `.lock` left and no summary): the requests in flight finish, the run is saved as interrupted, exit 130.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, startHeldServer, type HeldServer } from "../helpers/held-label.js";

let h: HeldServer;
beforeAll(async () => {
  h = await startHeldServer(3, "ipi-label-hup-");
});
afterAll(() => h.close());

describe("label: SIGHUP", () => {
  it("is a stop: exit 130, the run saved as interrupted, no .lock left", async () => {
    const run = path.join(h.labels, "h");
    const label = h.start(h.args("h"));
    while (h.fake.requests.length < 4 && label.child.exitCode === null) await sleep(5);
    expect(await label.stop("SIGHUP")).toBe(130);
    expect(fs.existsSync(path.join(run, ".lock"))).toBe(false);
    const store = JSON.parse(fs.readFileSync(path.join(run, "store.json"), "utf8"));
    expect(store.label_state.state).toBe("interrupted");
    expect(fs.existsSync(path.join(run, "summary.json"))).toBe(true);
  }, 120_000);
});
