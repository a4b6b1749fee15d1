/**
 * The judges' health on the page (fix 39): a banner per judge with something said of it (../judge-health.ts: the rate
 * caveat, the health warning, crashes, stale verdicts, the report's notes), above the list and on a trajectory's page,
 * and a note on each verdict that is an error and on each judge that crashed on the trajectory. Text only (./dom.ts).
 */
import type { ItemJudgeNote, JudgeBanner } from "../judge-health.js";
import { h } from "./dom.js";

/** One judge's banner: its id and mark, its sentences, its health line on demand. */
export function judgeBanner(b: JudgeBanner): HTMLElement {
  return h(
    "div",
    { class: `judge-health ${b.level}`, "data-judge": b.judge_id },
    h("b", {}, `judge ${b.judge_id}`),
    b.marker ? h("span", { class: "mark" }, ` ${b.marker}`) : null,
    h("ul", {}, ...b.lines.map((l) => h("li", {}, l))),
    h("details", {}, h("summary", {}, "health"), h("p", {}, b.health)),
  );
}

/** The banners of the judges with something said of them, or null when none has. */
export function judgeBanners(banners: readonly JudgeBanner[] | undefined): HTMLElement | null {
  const said = (banners ?? []).filter((b) => b.lines.length > 0);
  return said.length ? h("section", { class: "judge-banners", "aria-label": "judge health" }, ...said.map(judgeBanner)) : null;
}

/** A note on a verdict that is an error, or on a judge's crash on this trajectory, with the judge's mark. */
export function judgeNote(n: ItemJudgeNote, b: JudgeBanner | undefined): HTMLElement {
  return h(
    "div",
    { class: `judge-note ${n.kind}`, "data-judge": n.judge_id },
    h("b", {}, `judge ${n.judge_id}${n.repeat ? `, repeat ${n.repeat}` : ""}: `),
    n.text,
    b?.marker ? h("span", { class: "mark" }, ` ${b.marker}`) : null,
    b?.lines.length ? h("ul", {}, ...b.lines.map((l) => h("li", {}, l))) : null,
  );
}
