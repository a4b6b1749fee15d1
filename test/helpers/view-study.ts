/**
 * The set-up the view test files share: a committee run and its sample study (`../report/fixture.ts`) in a temp folder
 * made before the file's tests, and every server a test opens closed after them, the folder removed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { buildCommitteeFixture, type CommitteeFixture } from "../report/fixture.js";
import type { ViewServer } from "../../src/view/index.js";

/** What a view test file reads: the temp folder, the fixture, the study folder, and the servers to close (push them). */
export interface ViewStudy {
  tmp: string;
  fx: CommitteeFixture;
  study: string;
  readonly opened: ViewServer[];
}

/** Register the file's beforeAll/afterAll; the fields are set once beforeAll has run. @param prefix the temp folder's prefix. */
export function viewStudy(prefix: string): ViewStudy {
  const v = { tmp: "", study: "", opened: [] as ViewServer[] } as unknown as ViewStudy;
  beforeAll(async () => {
    v.tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    v.fx = await buildCommitteeFixture(v.tmp);
    v.study = path.join(v.tmp, "study");
  }, 120_000);
  afterAll(async () => {
    for (const s of v.opened) await s.close();
    if (v.tmp) fs.rmSync(v.tmp, { recursive: true, force: true });
  });
  return v;
}
