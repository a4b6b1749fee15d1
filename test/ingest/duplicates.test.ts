/**
 * The read's duplicate check names an item by its file AND its place in the file (red team 30, H3): two different
 * Inspect samples of one log under one id and epoch are a `duplicate_id` naming both places, never "the same input
 * given twice"; the same file given twice (or a byte-identical copy) stays `duplicate_input`.
 * Fixture: test/data/inspect/duplicate-samples.eval (make_duplicate_fixture.py).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestItem } from "../../src/ingest/index.js";
import { DuplicatePlaces, placeSuffix } from "../../src/ingest/duplicates.js";
import { entryPlaces } from "../../src/ingest/inspect-read.js";
import { DATA } from "../helpers/paths.js";
import { runCli } from "../helpers/cli.js";

const DUP = path.join(DATA, "inspect", "duplicate-samples.eval");
const LOG = path.join(DATA, "inspect", "tool-poisoning-log.json");

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ingest-dups-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function readAll(paths: string[]): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readTrajectories(paths)) out.push(it);
  return out;
}
const summary = (items: IngestItem[]) => items.map((i) => (i.kind === "trajectory" ? `ok ${i.trajectory.id}` : `${i.error.kind} ${i.error.trajectory_id}`));
const errors = (items: IngestItem[]) => items.flatMap((i) => (i.kind === "error" ? [i.error] : []));

describe("Inspect samples under one id in one log", () => {
  it(".eval: another sample with a taken id and epoch is a duplicate_id naming both entries; 7 and \"7\" are one id", async () => {
    const items = await readAll([DUP]);
    expect(summary(items)).toEqual([
      "ok duplicate-samples/dup_epoch_1",
      "duplicate_id duplicate-samples/dup_epoch_1",
      "ok duplicate-samples/7_epoch_1",
      "duplicate_id duplicate-samples/7_epoch_1",
      "ok duplicate-samples/ok_epoch_1",
    ]);
    const [dup, seven] = errors(items);
    // both places named: this entry first, the first one read after "first read from"
    expect(dup.message).toBe(
      `${DUP}: samples/dup_epoch_1_retry.json: duplicate trajectory id "duplicate-samples/dup_epoch_1", first read from ${DUP} (samples/dup_epoch_1.json) (the first one read is kept; this one is not judged)`,
    );
    // the number 7 and the string "7" give one id text (as Inspect's own entry names do): the zip repeats the name,
    // the rank tells the two entries apart
    expect(seven.message).toContain(`${DUP}: samples/7_epoch_1.json #2: duplicate trajectory id "duplicate-samples/7_epoch_1", first read from ${DUP} (samples/7_epoch_1.json #1)`);
    const kept = items.flatMap((i) => (i.kind === "trajectory" ? [i.trajectory] : []));
    expect(kept.map((t) => t.source.entry)).toEqual(["samples/dup_epoch_1.json", "samples/7_epoch_1.json #1", "samples/ok_epoch_1.json"]);
    expect(kept[0].messages).toHaveLength(7); // the first read is kept, not the 3-message retry
    expect(kept[1].metadata?.sample_id).toBe(7);
  });

  it(".eval given twice: every sample is a duplicate_input (read once), the refused ones too", async () => {
    const twice = await readAll([DUP, DUP]);
    expect(summary(twice).slice(5)).toEqual([
      "duplicate_input duplicate-samples/dup_epoch_1",
      "duplicate_input duplicate-samples/dup_epoch_1",
      "duplicate_input duplicate-samples/7_epoch_1",
      "duplicate_input duplicate-samples/7_epoch_1",
      "duplicate_input duplicate-samples/ok_epoch_1",
    ]);
    const copy = path.join(tmp, "copy", "duplicate-samples.eval");
    fs.mkdirSync(path.dirname(copy));
    fs.copyFileSync(DUP, copy);
    // a copy elsewhere has other ids (an Inspect id starts with the log's path from the inputs' common folder), but
    // each sample is the same sample, epoch and content as one of the first log: read once (eval-retry copies, red
    // team 37 F3: it used to count twice)
    const both = await readAll([DUP, copy]);
    expect(both.filter((i) => i.kind === "trajectory")).toHaveLength(3);
    expect(errors(both).map((e) => e.kind)).toEqual(["duplicate_id", "duplicate_id", ...Array(5).fill("duplicate_input")]);
  });

  it(".json log: two samples with one id and epoch are a duplicate_id naming samples[0] and samples[1]; the file twice is a duplicate_input", async () => {
    const log = JSON.parse(fs.readFileSync(LOG, "utf8"));
    const other = { ...log.samples[0], messages: log.samples[0].messages.slice(0, 3) };
    log.samples = [log.samples[0], other];
    const f = path.join(tmp, "log.json");
    fs.writeFileSync(f, JSON.stringify(log));
    const items = await readAll([f]);
    expect(summary(items)).toEqual(["ok log/poisoned-1_epoch_1", "duplicate_id log/poisoned-1_epoch_1"]);
    expect(errors(items)[0].message).toContain(`${f}: samples[1]: duplicate trajectory id "log/poisoned-1_epoch_1", first read from ${f} (samples[0])`);
    expect(summary(await readAll([f, f]))).toEqual(["ok log/poisoned-1_epoch_1", "duplicate_id log/poisoned-1_epoch_1", "duplicate_input log/poisoned-1_epoch_1", "duplicate_input log/poisoned-1_epoch_1"]);
  });

  it("label: the second sample is an input error (errors.jsonl duplicate_id), exit 1 as for chat JSONL", async () => {
    const labels = path.join(tmp, "labels");
    const r = await runCli(["label", DUP, "--run", "d", "--labels-dir", labels, "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("2 trajectory id(s) given twice with different inputs");
    const errs = fs
      .readFileSync(path.join(labels, "d", "errors.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(errs.map((e) => e.kind)).toEqual(["duplicate_id", "duplicate_id"]);
  });
});

describe("places", () => {
  it("a line, an entry, or the file alone", () => {
    expect(placeSuffix({ line: 3 })).toBe(":3");
    expect(placeSuffix({ entry: "samples[2]" })).toBe(" (samples[2])");
    expect(placeSuffix({})).toBe("");
  });

  it("a zip entry name met twice gets its rank; a name met once is itself", () => {
    expect(entryPlaces(["samples/a.json", "samples/b.json", "samples/a.json"])).toEqual(["samples/a.json #1", "samples/b.json", "samples/a.json #2"]);
  });

  it("one-item files: the same file is a duplicate_input, another file a duplicate_id; another line of one file a duplicate_id", () => {
    const a = path.join(tmp, "a.json");
    const b = path.join(tmp, "b.json");
    fs.writeFileSync(a, "{}");
    fs.writeFileSync(b, "{ }");
    const src = (p: string, extra: object = {}) => ({ format: "agentdojo", path: p, ...extra });
    const duplicateError = (...a: Parameters<DuplicatePlaces["error"]>) => new DuplicatePlaces().error(...a);
    expect(duplicateError(a, a, src(a), "x").kind).toBe("duplicate_input");
    expect(duplicateError(a, b, src(b), "x").kind).toBe("duplicate_id");
    expect(duplicateError(`${a}:1`, a, { format: "chat-jsonl", path: a, line: 2 }, "x").kind).toBe("duplicate_id");
    expect(duplicateError(`${a}:2`, a, { format: "chat-jsonl", path: a, line: 2 }, "x").kind).toBe("duplicate_input");
    // an entry's place never reads as a one-item file's
    expect(duplicateError(`${a} (samples[0])`, a, src(a), "x").kind).toBe("duplicate_id");
  });
});
