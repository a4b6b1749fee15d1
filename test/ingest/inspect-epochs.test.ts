import { describe, expect, it } from "vitest";
import { epochWarning, INSPECT_EPOCHS, sameSampleEpochs } from "../../src/ingest/inspect-epochs.js";
import { WarningCollector } from "../../src/ingest/warnings.js";

describe("Inspect epochs (break51 finding 6)", () => {
  it("epoch 1 says nothing; later epochs one warning per log, counted, saying what the intervals assume", () => {
    expect(epochWarning(1, "log.json", "samples[0]")).toBeUndefined();
    const c = new WarningCollector();
    for (const e of [2, 3, 2]) c.add(epochWarning(e, "log.json", `samples[${e}]`)!);
    const [w] = c.drain();
    expect(w.kind).toBe(INSPECT_EPOCHS);
    expect(w.count).toBe(3);
    expect(w.message).toMatch(/^log\.json: samples run for several epochs: each epoch is read as a run of its own .*Wilson intervals treat runs as independent, but epochs of one sample share its task and injection/);
  });
  it("two ids are epochs of one sample when they differ only in _epoch_<n>", () => {
    expect(sameSampleEpochs("l/s1_epoch_1", "l/s1_epoch_2")).toBe(true);
    expect(sameSampleEpochs("l/s1_epoch_1", "l/s2_epoch_1")).toBe(false);
    expect(sameSampleEpochs("a.jsonl:1", "b.jsonl:1")).toBe(false);
    expect(sameSampleEpochs("l/s1", "l/s1_epoch_2")).toBe(false);
  });
});
