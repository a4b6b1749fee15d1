import { describe, expect, it } from "vitest";
import { epochWarning, INSPECT_EPOCHS, sameSampleEpochs } from "../../src/ingest/inspect-epochs.js";
import { NAMED_FILES_MAX, namedFiles, WarningCollector } from "../../src/ingest/warnings.js";

describe("Inspect epochs (break51 finding 6)", () => {
  it("epoch 1 says nothing; later epochs one warning per read (not per log), counted, naming the logs, saying what the intervals assume", () => {
    expect(epochWarning(1, "log.json", "samples[0]")).toBeUndefined();
    const c = new WarningCollector();
    for (const e of [2, 3, 2]) c.add(epochWarning(e, "log.json", `samples[${e}]`)!);
    c.add(epochWarning(2, "other.json", "samples[1]")!);
    const ws = c.drain();
    expect(ws).toHaveLength(1);
    const [w] = ws;
    expect(w.kind).toBe(INSPECT_EPOCHS);
    expect(w.count).toBe(4);
    expect(w.message).toMatch(/^Inspect samples run for several epochs: each epoch is read as a run of its own .*Wilson intervals treat runs as independent, but epochs of one sample share its task and injection/);
    expect(w.message).toMatch(/\(4 items, e\.g\. samples\[2\]; in 2 files: log\.json, other\.json\)$/);
  });
  it("names at most NAMED_FILES_MAX files, then how many more", () => {
    expect(namedFiles(["a"])).toBe("in 1 file: a");
    expect(namedFiles(["a", "b", "c", "d", "e", "f", "g"])).toBe(`in 7 files: a, b, c, d, e, and 2 more`);
    expect(NAMED_FILES_MAX).toBe(5);
  });
  it("two ids are epochs of one sample when they differ only in _epoch_<n>", () => {
    expect(sameSampleEpochs("l/s1_epoch_1", "l/s1_epoch_2")).toBe(true);
    expect(sameSampleEpochs("l/s1_epoch_1", "l/s2_epoch_1")).toBe(false);
    expect(sameSampleEpochs("a.jsonl:1", "b.jsonl:1")).toBe(false);
    expect(sameSampleEpochs("l/s1", "l/s1_epoch_2")).toBe(false);
  });
});
