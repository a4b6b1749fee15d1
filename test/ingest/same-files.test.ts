/**
 * One folder or file reached under two names across the input paths of one read (a symbolic link, a hard link) is
 * read once, with one `read_once` note naming both input paths (src/ingest/same-files.ts); the same path given
 * twice stays the `duplicate_input` error it was.
 */
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTrajectories, type IngestWarning } from "../../src/ingest/index.js";
import { CORPUS } from "../helpers/paths.js";

const SRC = path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_13/important_instructions");
const tmp = mkdtempSync(path.join(os.tmpdir(), "ipi-same-"));
const z = path.join(tmp, "in", "z");
const a = path.join(tmp, "in", "a");
beforeAll(() => {
  mkdirSync(path.join(z, "t"), { recursive: true });
  copyFileSync(path.join(SRC, "injection_task_3.json"), path.join(z, "t", "one.json"));
  copyFileSync(path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_5/tool_knowledge/injection_task_0.json"), path.join(z, "t", "two.json"));
  symlinkSync("z", a, "dir");
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function read(paths: string[]): Promise<{ ids: string[]; errors: string[]; notes: IngestWarning[] }> {
  const out = { ids: [] as string[], errors: [] as string[], notes: [] as IngestWarning[] };
  for await (const it of readTrajectories(paths, { onWarning: (w) => out.notes.push(w) })) {
    if (it.kind === "trajectory") out.ids.push(it.trajectory.id);
    else out.errors.push(it.error.kind);
  }
  return out;
}

describe("the same files through two input paths", () => {
  it("in/z in/a with in/a -> z: each trajectory read once, one note naming both paths", async () => {
    const r = await read([z, a]);
    expect(r.ids).toHaveLength(2);
    expect(r.errors).toEqual([]);
    const notes = r.notes.filter((w) => w.kind === "read_once");
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ path: a, count: 1 });
    expect(notes[0].message).toContain(`under ${z}`);
  });

  it("either order, and a sub-folder of the link given after the folder", async () => {
    expect((await read([a, z])).ids).toHaveLength(2);
    const r = await read([z, path.join(a, "t")]);
    expect(r.ids).toHaveLength(2);
    expect(r.notes.filter((w) => w.kind === "read_once")).toHaveLength(1);
  });

  it("a file given through a link after its folder is read once", async () => {
    const r = await read([z, path.join(a, "t", "one.json")]);
    expect(r.ids).toHaveLength(2);
    expect(r.errors).toEqual([]);
    expect(r.notes.find((w) => w.kind === "read_once")?.message).toContain("1 file is the same");
  });

  it("in/z in/z stays a duplicate_input error per trajectory, and no read_once note", async () => {
    const r = await read([z, z]);
    expect(r.ids).toHaveLength(2);
    expect(r.errors).toEqual(["duplicate_input", "duplicate_input"]);
    expect(r.notes.filter((w) => w.kind === "read_once")).toEqual([]);
  });

  it("a hard link is a distinct trajectory by its path, as a copy is (cp -al per condition: red team 14)", async () => {
    const h = path.join(tmp, "hard");
    mkdirSync(path.join(h, "p"), { recursive: true });
    mkdirSync(path.join(h, "q"), { recursive: true });
    copyFileSync(path.join(SRC, "injection_task_3.json"), path.join(h, "p", "x.json"));
    linkSync(path.join(h, "p", "x.json"), path.join(h, "q", "x.json"));
    const one = await read([h]);
    expect(one.ids).toHaveLength(2);
    expect(one.notes.filter((w) => w.kind === "read_once")).toEqual([]);
  });

  it("a run labelled under in/z and resumed under in/a (-> z) takes the files as the trajectories it stored", async () => {
    const { createSignatureJudge } = await import("../../src/judges/signature/index.js");
    const { labelRun } = await import("../../src/run/label.js");
    const labelsDir = path.join(tmp, "labels");
    const first = await labelRun({ inputs: [z], run: "r", labelsDir, judges: [createSignatureJudge()] });
    const again = await labelRun({ inputs: [a], run: "r", labelsDir, judges: [createSignatureJudge()] });
    expect(again.summary.trajectories).toBe(first.summary.trajectories);
    expect(again.progress.unread).toBe(2);
  });

  describe("a file linked under two input paths keeps the name the run holds, whatever their order (red team 14 #4)", () => {
    const o = path.join(tmp, "order");
    const dir = path.join(o, "z");
    const link = path.join(o, "link.json");
    beforeAll(() => {
      mkdirSync(path.join(dir, "t"), { recursive: true });
      copyFileSync(path.join(SRC, "injection_task_3.json"), path.join(dir, "t", "one.json"));
      copyFileSync(path.join(CORPUS, "runs/gpt-4o-2024-05-13/workspace/user_task_5/tool_knowledge/injection_task_0.json"), path.join(dir, "t", "two.json"));
      symlinkSync(path.join(dir, "t", "one.json"), link);
    });
    const label = async (run: string, inputs: string[]) => {
      const { createSignatureJudge } = await import("../../src/judges/signature/index.js");
      const { labelRun } = await import("../../src/run/label.js");
      const { readTrajectoryIndex } = await import("../../src/store/records.js");
      const r = await labelRun({ inputs, run, labelsDir: path.join(o, "labels"), judges: [createSignatureJudge()] });
      return { r, ids: [...(await readTrajectoryIndex(path.join(o, "labels", run))).keys()].sort() };
    };

    it("label o/z, then label o/link.json o/z: no second id, nothing judged again, the note names the folder", async () => {
      const first = await label("fwd", [dir]);
      const again = await label("fwd", [link, dir]);
      expect(again.ids).toEqual(first.ids);
      expect(again.r.progress.judged).toBe(0);
      expect(again.r.summary.trajectories).toBe(2);
      const note = (again.r.summary.ingest_warnings ?? []).find((w) => w.kind === "read_once");
      expect(note?.message).toContain(`read once, under ${dir}`);
    });

    it("label o/link.json o/z, then label o/z o/link.json: the link's id stays", async () => {
      const first = await label("rev", [link, dir]);
      expect(first.ids).toHaveLength(2);
      const again = await label("rev", [dir, link]);
      expect(again.ids).toEqual(first.ids);
      expect(again.r.progress.judged).toBe(0);
      expect(again.r.summary.trajectories).toBe(2);
    });

    it("a fresh read without a run: the order decides, as before", async () => {
      const r1 = await read([link, dir]);
      const r2 = await read([dir, link]);
      expect(r1.ids).toHaveLength(2);
      expect(r2.ids).toHaveLength(2);
    });
  });
});
