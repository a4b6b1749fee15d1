import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { judgeBanners } from "../../src/view/judge-health.js";
import { injectionUnknownWarning } from "../../src/verdict/injection-unknown.js";
import type { JudgeHealth } from "../../src/verdict/health.js";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "view-inj-unknown-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("view's judge-health panel says fix48a's warning (labels on attacked runs that record no injected text)", () => {
  it("the banner carries the same text the CLI gives; none without such labels", async () => {
    const counts = { labelled: 136, attacked_labels: 226 };
    const h = { judge_id: "fakegpt", judge_model: "m", looks_broken: false, flags: [], unverified_by_reason: {}, verdicts: 300, usable: 300, unverified: 0, quotes: 0, attacked_labels: 226, injection_unknown: counts } as unknown as JudgeHealth;
    const r = await judgeBanners(tmp, [h], undefined, () => false);
    const lines = r.banners.flatMap((b) => JSON.stringify(b));
    expect(lines.join("\n")).toContain(JSON.stringify(injectionUnknownWarning("fakegpt", counts)).slice(1, -1));
    const none = await judgeBanners(tmp, [{ ...h, injection_unknown: undefined } as JudgeHealth], undefined, () => false);
    expect(JSON.stringify(none.banners)).not.toContain("record no injected text");
  });
});
