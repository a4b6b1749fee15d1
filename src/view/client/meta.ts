/** What the page knows about the server's run and sample (GET /api/meta). */
import type { ScaleLabel } from "../../rubric/scale.js";
import type { JudgeBanner } from "../judge-health.js";

/** GET /api/meta (src/view/server.ts). */
export interface Meta {
  mode: "full" | "blind";
  run?: string;
  trajectories?: number;
  judges?: string[];
  /** What label's summary and report say of each judge (../judge-health.ts). */
  judge_health?: JudgeBanner[];
  committee?: { source: string | null; reason?: string };
  fields?: string[];
  facets?: Record<string, Record<string, number>>;
  humans?: boolean;
  other?: { run: string; judges: string[]; judge_health?: JudgeBanner[] } | null;
  sample: { scale: string; labels: ScaleLabel[]; items: string[]; precedence: string; annotators: string[]; claim_key?: string } | null;
  warnings: string[];
}
