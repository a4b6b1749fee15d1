/**
 * The resume stamp holds the file's ctime (src/store/file-stamp.ts). A file whose ctime changes while its content
 * does not (chmod, a hard link made or removed, `cp -al` of the tree) used to be read again on EVERY later resume:
 * `RunStore.addTrajectory` took it as "same" and kept the old stamp, which never matched again. Now the row is
 * written again with the new stamp (`FileStamps.renews`), so only the first resume after the change reads the file.
 * Through the built CLI (the offline signature judge), counted by `--json`'s `this_run.unread`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/paths.js";

let tmp: string;
let inputs: string;
let labels: string;
const files = () => (fs.readdirSync(inputs, { recursive: true }) as string[]).map((f) => path.join(inputs, f)).filter((f) => fs.statSync(f).isFile() && f.endsWith(".json"));
const rows = () => fs.readFileSync(path.join(labels, "r", "trajectories.jsonl"), "utf8").split("\n").filter(Boolean).length;
const resume = async () => {
  const r = await runCli(["label", inputs, "--run", "r", "--labels-dir", labels, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).this_run as { read: number; unread: number; judged: number; changed: number };
};

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ipi-stamp-renew-"));
  inputs = path.join(tmp, "in");
  labels = path.join(tmp, "labels");
  fs.cpSync(SAMPLES, inputs, { recursive: true });
  const r = await runCli(["label", inputs, "--run", "r", "--labels-dir", labels]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("a changed ctime with the same content renews the stamp", () => {
  it("chmod: the first resume reads the files, the second reads none", async () => {
    const n = files().length;
    expect(n).toBeGreaterThan(5);
    expect((await resume()).unread).toBe(n); // nothing changed: none read
    for (const f of files()) fs.chmodSync(f, 0o600);
    const before = rows();
    const first = await resume();
    expect(first).toMatchObject({ read: n, unread: 0, judged: 0, changed: 0 }); // every file read: ctime changed
    expect(rows()).toBe(before + n); // one row each, renewing its stamp (content and verdicts unchanged)
    expect(await resume()).toMatchObject({ read: n, unread: n, judged: 0 }); // renewed: none read again
    expect(rows()).toBe(before + n);
  }, 120_000);

  it("a hard link made and removed: the same", async () => {
    const n = files().length;
    for (const f of files()) {
      fs.linkSync(f, `${f}.lnk`);
      fs.rmSync(`${f}.lnk`);
    }
    expect((await resume()).unread).toBe(0);
    expect((await resume()).unread).toBe(n);
  }, 120_000);
});
