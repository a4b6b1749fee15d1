/**
 * The progress total of `label` is a pre-count over the inputs; a file deleted after it is counted and before the
 * reading reaches it was never read, and the last progress report stayed short of its total ("41/42", an ETA for an
 * item that never comes) though the read had ended (break44). Now a read that ends without a stop lowers the total to
 * what was read, and the last report says the read is whole.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSignatureJudge } from "../../src/judges/signature/index.js";
import { labelRun } from "../../src/run/label.js";
import type { LabelProgress } from "../../src/run/label-core.js";
import { CORPUS } from "../helpers/paths.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vanished-total-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace");

describe("progress total after inputs vanish mid-run", () => {
  it("the last report's total is what was read, not the pre-count", async () => {
    const corpus = path.join(tmp, "corpus");
    fs.cpSync(SRC, path.join(corpus, "workspace"), { recursive: true });
    const files = fs.readdirSync(corpus, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".json")).sort();
    const last = path.join(corpus, files.at(-1)!);
    const reports: LabelProgress[] = [];
    const r = await labelRun({
      inputs: [corpus],
      run: "r",
      labelsDir: path.join(tmp, "labels"),
      judges: [createSignatureJudge()],
      onProgress: (p) => {
        if (p.total > 0 && fs.existsSync(last)) fs.rmSync(last); // counted, then gone before the walk reaches it
        reports.push({ ...p });
      },
    });
    const end = reports.at(-1)!;
    const done = end.read + end.errors + (end.empty_placeholders ?? 0);
    expect(done).toBe(files.length - 1);
    expect(r.summary.trajectories).toBe(files.length - 1);
    expect(end.total).toBe(done);
    expect(Math.max(...reports.map((p) => p.total))).toBe(files.length); // the pre-count, before the file went
  });
});
