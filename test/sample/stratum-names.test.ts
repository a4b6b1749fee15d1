/**
 * Two different strata cannot share a name (fix50b): `agent_model=x,condition=y` with condition `z` and `agent_model=x`
 * with condition `y,condition=z` both print `agent_model=x,condition=y,condition=z`; the sample refuses such a run
 * instead of drawing, weighting and estimating them as one stratum. The names' text (a label-file format) is unchanged.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { uniqueStratumNamer } from "../../src/sample/stratum-names.js";
import { buildPopulation } from "../../src/sample/population.js";
import { readColumnPopulation } from "../../src/sample/population-columns.js";
import { SampleError } from "../../src/sample/sample.js";
import { row } from "./fixtures.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stratumnames-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const a = row("t1", { agent_model: "x,condition=y", condition: "z" });
const b = row("t2", { agent_model: "x", condition: "y,condition=z" });

describe("stratum names are unique to their values", () => {
  it("names stay as written; a name two value tuples share is refused, either order", () => {
    const name = uniqueStratumNamer(["agent_model", "condition"]);
    expect(name(row("t0", { agent_model: "m", condition: "c" }))).toBe("agent_model=m,condition=c");
    expect(name(a)).toBe("agent_model=x,condition=y,condition=z");
    expect(name(a)).toBe("agent_model=x,condition=y,condition=z");
    expect(() => name(b)).toThrow(/two different strata would both be named "agent_model=x,condition=y,condition=z"/);
    const other = uniqueStratumNamer(["agent_model", "condition"]);
    other(row("t3", { agent_model: "x", condition: "y,condition=z" }));
    expect(() => other(row("t4", { agent_model: "x,condition=y", condition: "z" }))).toThrow(/two different strata/);
  });

  it("a comma alone does not refuse: 'a,b' is its own stratum", () => {
    const name = uniqueStratumNamer(["agent_model", "condition"]);
    expect(name(row("t1", { agent_model: "a,b", condition: "c" }))).toBe("agent_model=a,b,condition=c");
    expect(name(row("t2", { agent_model: "a", condition: "c" }))).toBe("agent_model=a,condition=c");
  });

  it("the object and column populations refuse the run", async () => {
    expect(() => buildPopulation([a, b], null, ["agent_model", "condition"])).toThrow(/two different strata/);
    const dir = path.join(tmp, "run");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "trajectories.jsonl"), [a, b].map((r) => JSON.stringify(r)).join("\n") + "\n");
    await expect(readColumnPopulation(dir, ["agent_model", "condition"])).rejects.toThrow(SampleError);
    await expect(readColumnPopulation(dir, ["agent_model"])).resolves.toBeTruthy();
  });
});
