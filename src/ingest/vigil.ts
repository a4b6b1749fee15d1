/**
 * VIGIL (Touring-686/VIGIL) run logs: AgentDojo-format files whose attack sits in the agent's tool list (the schema
 * surface). What a file adds to AgentDojo's fields: `attack_type` one of {@link VIGIL_ATTACKS}, `injections: {}`
 * always, and, in successful runs only, `malicious_tool_name` + `malicious_tool_docstring` (the poisoned tool
 * description). The agent's full tool list is recorded nowhere. In some files (all of `debug_run`, some of
 * `runs_base`) the recorded pair names a tool the agent never called while it called another malicious tool: a
 * stale record from another run. Only a record the tool calls confirm is trusted.
 */
import type { Message, Surface, ToolDefinition } from "../types.js";

/** VIGIL's attack types and the surface each one uses. `sop_exfiltration`: a malicious tool RETURNS the instruction. */
export const VIGIL_ATTACKS: Readonly<Record<string, Surface>> = {
  tool_attack: "tool_description",
  parameter_override: "tool_description",
  prerequisite_dependency: "tool_description",
  postaction_dependency: "tool_description",
  sop_exfiltration: "tool_output",
};

type Json = Record<string, unknown>;

/** True when a parsed run is a VIGIL run: it has a `malicious_tool_*` field or a VIGIL `attack_type`. */
export function isVigilRun(run: Json): boolean {
  if (Object.hasOwn(run, "malicious_tool_name") || Object.hasOwn(run, "malicious_tool_docstring")) return true;
  return typeof run.attack_type === "string" && Object.hasOwn(VIGIL_ATTACKS, run.attack_type);
}

/** What a VIGIL run adds to its canonical trajectory. */
export interface VigilFields {
  tools?: ToolDefinition[];
  injections: Record<string, string>;
  surfaces: Record<string, Surface>;
  metadata: Record<string, unknown>;
  /** Set when the file records a malicious tool the run never called (not trusted). */
  stale?: { name: string };
}

/**
 * The tools, injections and surfaces of a VIGIL run.
 *
 * - The recorded `malicious_tool_docstring` becomes the description of `malicious_tool_name` in `tools` (the only
 *   tool known: VIGIL records no tool list) and the injection `tool_description:<name>` with surface
 *   `tool_description`, when the agent called that tool in the run (the calls confirm it was offered). A record
 *   of a tool never called is stale: it is kept only in `metadata.malicious_tool_recorded` and `stale` is set.
 * - Without a trusted description, the injection text is unknown: `injections` stays `{}` and the surface of the
 *   attack type is recorded under the placeholder `vigil:<attack_type>` (surface from {@link VIGIL_ATTACKS}).
 * - `sop_exfiltration`: surface `tool_output` (the malicious tool's result carries the instruction); a trusted
 *   docstring still goes to `tools` (it was offered) but is not the injection.
 * Unattacked runs (`attack_type` null): nothing.
 */
export function vigilFields(run: Json, messages: Message[], attack: string | undefined): VigilFields {
  const out: VigilFields = { injections: {}, surfaces: {}, metadata: { benchmark: "vigil" } };
  if (attack === undefined) return out;
  const surface: Surface = Object.hasOwn(VIGIL_ATTACKS, attack) ? VIGIL_ATTACKS[attack] : "tool_description";
  const name = typeof run.malicious_tool_name === "string" && run.malicious_tool_name !== "" ? run.malicious_tool_name : undefined;
  const doc = typeof run.malicious_tool_docstring === "string" && run.malicious_tool_docstring !== "" ? run.malicious_tool_docstring : undefined;
  const called = new Set<string>();
  for (const m of messages) for (const c of m.tool_calls ?? []) called.add(c.name);
  let trusted = false;
  if (name !== undefined && doc !== undefined) {
    trusted = called.has(name);
    out.metadata.malicious_tool_recorded = { name, called: trusted };
    if (trusted) {
      out.tools = [{ name, description: doc }];
      out.metadata.tools_recorded = "the malicious tool only (VIGIL records no tool list)";
    } else out.stale = { name };
  }
  if (trusted && surface === "tool_description") {
    const key = `tool_description:${name}`;
    out.injections[key] = doc!;
    out.surfaces[key] = "tool_description";
  } else {
    out.surfaces[`vigil:${attack}`] = surface;
  }
  return out;
}
