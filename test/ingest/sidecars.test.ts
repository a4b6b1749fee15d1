/**
 * A corpus's sidecar files (review finding: `label ../shared/corpus/agentdojo` reported its `manifest.jsonl` as an
 * `unknown_format` input error): a manifest, README, licence or checksums met in a walked folder are no input error;
 * they are counted and named in one `passed_over` warning per input folder. The rule is narrow: an unknown JSON file
 * that is not a known sidecar stays an input error, a sidecar-named file that holds trajectories is read, and a
 * file given by name is read as given.
 */
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countInputs, readTrajectories, type IngestItem, type IngestWarning, type ReadOptions } from "../../src/ingest/index.js";
import { isSidecarName } from "../../src/ingest/walk.js";
import { CORPUS, DATA } from "../helpers/paths.js";

const realText = readFileSync(path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_13/important_instructions/injection_task_3.json"), "utf8");
const manifestText = readFileSync(path.join(CORPUS, "manifest.jsonl"), "utf8");
const line = (id: string) => JSON.stringify({ id, messages: [{ role: "user", content: `hello ${id}` }] });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "ingest-sidecars-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
async function put(rel: string, data: string): Promise<string> {
  const p = path.join(dir, rel);
  await mkdir(path.dirname(p), { recursive: true });
  await writeFile(p, data);
  return p;
}
async function readAll(paths: string[], opts: ReadOptions = {}): Promise<{ items: string[]; warnings: IngestWarning[] }> {
  const items: IngestItem[] = [];
  const warnings: IngestWarning[] = [];
  for await (const it of readTrajectories(paths, { ...opts, onWarning: (w) => warnings.push(w) })) items.push(it);
  return {
    items: items.map((i) => (i.kind === "trajectory" ? `ok ${i.trajectory.id}` : `${i.error.kind} ${path.relative(dir, i.error.path)}`)),
    warnings: warnings.filter((w) => w.kind === "passed_over"),
  };
}

describe("sidecar files in a walked folder", () => {
  it("the names: manifests, README, licences, checksums; not a name that merely contains one", () => {
    for (const n of ["manifest.jsonl", "MANIFEST.json", "agentdojo.manifest.jsonl", "checksums.json", "README.md", "README", "LICENSE", "LICENCE.txt", "NOTICE", "COPYING", "SHA256SUMS", "runs.sha256", "x.md5"])
      expect(isSidecarName(n), n).toBe(true);
    for (const n of ["g-manifest.jsonl", "manifests.jsonl", "none.json", "injection_task_3.json", "readme_runs.json", "runs.jsonl", "notes.txt", "make_fixtures.py"])
      expect(isSidecarName(n), n).toBe(false);
  });

  it("a corpus folder: the runs read, the manifest, README, licence and checksums passed over and named in one warning", async () => {
    const root = path.join(dir, "corpus");
    await put("corpus/runs/m/s/ut/a/it.json", realText);
    await put("corpus/manifest.jsonl", manifestText);
    await put("corpus/README.md", "# a corpus\n");
    await put("corpus/LICENSE", "MIT\n");
    await put("corpus/SHA256SUMS", "abc  runs/m/s/ut/a/it.json\n");
    await put("corpus/checksums.json", JSON.stringify({ "runs/m/s/ut/a/it.json": "abc" }));
    await put("corpus/notes.txt", "not walked, as before");
    const r = await readAll([root]);
    expect(r.items).toEqual(["ok runs/m/s/ut/a/it"]);
    expect(r.warnings).toEqual([
      {
        kind: "passed_over",
        path: root,
        count: 5,
        message: `${root}: 5 files not trajectories, passed over (a corpus's manifest, README, licence or checksums): LICENSE, README.md, SHA256SUMS, checksums.json, manifest.jsonl`,
      },
    ]);
    expect(await countInputs([root])).toBe(1);
  });

  it("an empty sidecar is passed over whatever its extension, named (empty); an empty manifest given by name stays an error", async () => {
    const root = path.join(dir, "empties");
    await put("empties/runs/m/s/ut/a/it.json", realText);
    await put("empties/manifest.jsonl", "");
    await put("empties/NOTICE", "");
    await put("empties/checksums.json", "");
    await put("empties/x.manifest.jsonl", "\n\n"); // blank lines only: no trajectory either
    const r = await readAll([root]);
    expect(r.items).toEqual(["ok runs/m/s/ut/a/it"]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      `${root}: 4 files not trajectories, passed over (a corpus's manifest, README, licence or checksums): NOTICE (empty), checksums.json (empty), manifest.jsonl (empty), x.manifest.jsonl`,
    ]);
    expect(await countInputs([root])).toBe(1);
    const given = await readAll([path.join(root, "manifest.jsonl")]);
    expect(given.items).toEqual(["invalid_json empties/manifest.jsonl"]);
  });

  it("narrow: an unknown JSON(L) file that is not a sidecar stays an input error; a manifest given by name is read as given", async () => {
    const root = path.join(dir, "narrow");
    await put("narrow/g-manifest.jsonl", '{"path": "runs/x.json"}\n');
    await put("narrow/runs.json", JSON.stringify({ not: "a run" }));
    const manifest = await put("narrow/manifest.jsonl", '{"path": "runs/x.json"}\n');
    const r = await readAll([root]);
    expect(r.items).toEqual(["unknown_format narrow/g-manifest.jsonl", "schema narrow/runs.json"]);
    expect(r.warnings.map((w) => w.count)).toEqual([1]);
    expect(await countInputs([root])).toBe(2);
    const given = await readAll([manifest]);
    expect(given.items).toEqual(["unknown_format narrow/manifest.jsonl"]);
    expect(given.warnings).toEqual([]);
  });

  it("a sidecar-named file that holds trajectories is read as usual (a manifest.jsonl of chat lines, a manifest.json run)", async () => {
    const root = path.join(dir, "holds");
    await put("holds/manifest.jsonl", line("C1") + "\n" + line("C2") + "\n");
    await put("holds/sub/manifest.json", realText);
    const r = await readAll([root]);
    expect(r.items).toEqual(["ok C1", "ok C2", expect.stringMatching(/^ok /)]);
    expect(r.warnings).toEqual([]);
    expect(await countInputs([root])).toBe(3);
  });

  it("a sidecar-like name with a trajectory file's extension (.eval, .traj) is read as before, not passed over (red team 11)", async () => {
    const root = path.join(dir, "ext");
    await put("ext/LICENSE.traj", readFileSync(path.join(DATA, "shell/swe-agent.traj"), "utf8"));
    await put("ext/x.traj", readFileSync(path.join(DATA, "shell/swe-agent.traj"), "utf8"));
    const r = await readAll([root]);
    expect(r.items).toHaveLength(2);
    expect(r.items.every((i) => i.startsWith("ok "))).toBe(true);
    expect(r.warnings).toEqual([]);
    expect(await countInputs([root])).toBe(2);
  });

  it("--format forces a JSON sidecar to be read as it says; a README is still passed over", async () => {
    const root = path.join(dir, "forced");
    await put("forced/manifest.jsonl", '{"path": "runs/x.json"}\n');
    await put("forced/README.md", "# x\n");
    const r = await readAll([root], { format: "chat-jsonl" });
    expect(r.items).toEqual(["schema forced/manifest.jsonl"]);
    expect(r.warnings.map((w) => w.message)).toEqual([`${root}: 1 file not trajectories, passed over (a corpus's manifest, README, licence or checksums): README.md`]);
  });

  it("a sidecar-named file that cannot be read is a read_error naming the file and the system error, never passed over (nits12)", async () => {
    const root = path.join(dir, "unreadable");
    await put("unreadable/runs.jsonl", line("U1") + "\n");
    for (const n of ["README.md", "manifest.json", "manifest.jsonl", "SHA256SUMS"]) await symlink(path.join(dir, "nowhere", n), path.join(root, n));
    await symlink("LICENSE", path.join(root, "LICENSE")); // a link to itself: ELOOP
    await put("unreadable/sub/checksums.json", "x".repeat(200)); // over the limit below: not read whole
    await put("unreadable/sub/NOTICE", "fine\n");
    await put("unreadable/sub/manifest.json", '{"runs": ["a.json", '); // read, cut short: not a trajectory, passed over
    const items: IngestItem[] = [];
    const warnings: IngestWarning[] = [];
    for await (const it of readTrajectories([root], { maxItemBytes: 100, onWarning: (w) => warnings.push(w) })) items.push(it);
    const errors = items.flatMap((i) => (i.kind === "error" ? [i.error] : []));
    expect(errors.map((e) => `${e.kind} ${path.relative(root, e.path)}`)).toEqual([
      "read_error LICENSE",
      "read_error README.md",
      "read_error SHA256SUMS",
      "read_error manifest.json",
      "read_error manifest.jsonl",
      "too_large sub/checksums.json",
    ]);
    expect(errors[0].message).toMatch(/LICENSE.*ELOOP/);
    for (const e of errors.slice(1, 5)) expect(e.message).toMatch(/ENOENT/);
    expect(items.filter((i) => i.kind === "trajectory")).toHaveLength(1);
    expect(warnings.filter((w) => w.kind === "passed_over").map((w) => w.message)).toEqual([
      `${root}: 2 files not trajectories, passed over (a corpus's manifest, README, licence or checksums): sub/NOTICE, sub/manifest.json`,
    ]);
    expect(await countInputs([root], { maxItemBytes: 100 })).toBe(7);
  });
});
