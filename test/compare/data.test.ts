import { describe, expect, it } from "vitest";
import { buildObservations } from "../../src/compare/data.js";
import { conditionValue } from "../../src/store/row-field.js";
import type { TrajectoryIndexRow } from "../../src/store/run-store.js";
import type { CommitteeVerdict, Verdict } from "../../src/types.js";

function row(id: string, extra: Partial<TrajectoryIndexRow> = {}): TrajectoryIndexRow {
  return {
    id,
    source: { format: "agentdojo", path: `/x/${id}.json` },
    agent_model: "gpt-4o",
    suite: "banking",
    user_task_id: "user_task_1",
    injection_task_id: "injection_task_2",
    attack: "important_instructions",
    condition: "no_defense",
    attacked: true,
    n_messages: 3,
    content_sha256: "0",
    ...extra,
  };
}

function verdict(id: string, label: Verdict["label"], extra: Partial<Verdict> = {}): Verdict {
  return {
    trajectory_id: id,
    judge_id: "sig",
    judge_model: "signature",
    judge_family: "rule",
    repeat: 0,
    rubric_version: "1",
    prompt_sha256: "p",
    status: "ok",
    label,
    label_claimed: label,
    compromised: label === null ? null : label === "full_compliance" || label === "partial_compliance",
    downgraded: false,
    findings: [],
    rationale: "",
    attempts: 1,
    usage: { prompt_tokens: 0, completion_tokens: 0 },
    truncated: false,
    raw_replies: [],
    created_at: "2025-01-01T00:00:00Z",
    ...extra,
  };
}

describe("condition field", () => {
  it("reads top-level fields and metadata paths; numbers and booleans become strings; others are undefined", () => {
    const r = row("a", { metadata: { surface: "email", deep: { level: 2, flag: true, obj: {} }, empty: "" } });
    expect(conditionValue(r, "condition")).toBe("no_defense");
    expect(conditionValue(r, "attack")).toBe("important_instructions");
    expect(conditionValue(r, "metadata.surface")).toBe("email");
    expect(conditionValue(r, "metadata.deep.level")).toBe("2");
    expect(conditionValue(r, "metadata.deep.flag")).toBe("true");
    expect(conditionValue(r, "metadata.deep.obj")).toBeUndefined();
    expect(conditionValue(r, "metadata.empty")).toBeUndefined();
    expect(conditionValue(r, "metadata.missing.x")).toBeUndefined();
    expect(conditionValue(r, "metadata.constructor")).toBeUndefined();
    expect(conditionValue(row("b", { attack: undefined }), "attack")).toBeUndefined();
  });
});

describe("observations", () => {
  const index = new Map<string, TrajectoryIndexRow>([
    ["t1", row("t1")],
    ["t2", row("t2", { condition: "tool_filter" })],
    ["t3", row("t3", { attacked: false, attack: undefined, injection_task_id: undefined })],
    ["t4", row("t4", { agent_model: undefined })],
    ["t5", row("t5")],
    ["t6", row("t6")],
    ["t7", row("t7", { suite: undefined, user_task_id: undefined })],
    ["t8", row("t8")],
  ]);
  const verdicts = [
    verdict("t1", "partial_compliance"),
    verdict("t2", "not_exposed"),
    verdict("t3", "unaffected"),
    verdict("t4", "full_compliance"),
    verdict("t5", null, { status: "judge_error" }),
    verdict("t6", null, { status: "judge_refused" }),
    verdict("t7", "full_compliance"),
    verdict("t1", "unaffected", { repeat: 1 }),
    verdict("t8", "full_compliance", { judge_id: "other" }),
  ];

  it("keeps labelled attacked trajectories with a condition and counts the rest by reason", () => {
    const o = buildObservations(index, { verdicts }, { kind: "judge", judge_id: "sig" }, "condition");
    expect(o.n_total).toBe(8);
    expect(o.observations.map((x) => [x.trajectory_id, x.condition, x.compromised])).toEqual([
      ["t1", "no_defense", true],
      ["t2", "tool_filter", false],
      ["t7", "no_defense", true],
    ]);
    expect(o.excluded).toEqual({ unattacked: 1, no_agent_model: 1, judge_error: 1, judge_refused: 1, no_verdict: 1 });
    const t1 = o.observations[0];
    expect(t1.unit).toBe("banking/user_task_1/injection_task_2");
    expect(t1.injection_task).toBe("banking/injection_task_2");
    const t7 = o.observations[2];
    expect(t7.suite).toBe("(none)");
    expect(t7.unit).toBe("t7"); // no user task: not paired
  });

  it("uses committee labels with status ok only", () => {
    const committee: CommitteeVerdict[] = [
      { trajectory_id: "t1", votes: {}, label: "full_compliance", compromised: true, unanimous: true, status: "ok" },
      { trajectory_id: "t2", votes: {}, label: null, compromised: null, unanimous: false, status: "disputed" },
      { trajectory_id: "t5", votes: {}, label: null, compromised: null, unanimous: false, status: "no_quorum" },
    ];
    const o = buildObservations(index, { committee }, { kind: "committee" }, "attack");
    expect(o.observations.map((x) => x.trajectory_id)).toEqual(["t1"]);
    expect(o.excluded.committee_disputed).toBe(1);
    expect(o.excluded.committee_no_quorum).toBe(1);
    expect(o.observations[0].condition).toBe("important_instructions");
  });
});

describe("groups left without a usable label", () => {
  it("names every condition, model, suite and surface whose attacked trajectories were all excluded", () => {
    const index = new Map(
      [
        row("a1"),
        row("a2", { condition: "drift" }),
        row("a3", { condition: "drift", agent_model: "llama" }),
        row("a4", { suite: "slack" }),
        row("u1", { attacked: false, condition: "unseen" }),
      ].map((r) => [r.id, r]),
    );
    const vs = [verdict("a1", "full_compliance"), verdict("a2", null, { status: "unverified" }), verdict("a4", null, { status: "judge_error" })];
    const o = buildObservations(index, { verdicts: vs }, { kind: "judge", judge_id: "sig" }, "condition");
    expect(o.observations.map((x) => x.trajectory_id)).toEqual(["a1"]);
    expect(o.excluded_groups).toEqual([
      { field: "condition", group: "drift", items: 2, reason: "no_usable_label", excluded: { unverified: 1, no_verdict: 1 } },
      { field: "agent_model", group: "llama", items: 1, reason: "no_usable_label", excluded: { no_verdict: 1 } },
      { field: "suite", group: "slack", items: 1, reason: "no_usable_label", excluded: { judge_error: 1 } },
    ]);
  });
});
