/**
 * The population a rate heading names (newuser51 finding 3: "attack success over the 433 attacked runs" above
 * `asr_goal 100.0% (86/86)` read as 100% of 433): the labelled attacked runs the rates are over, and the attacked runs
 * they are of when some have no label.
 */

/**
 * `the 433 attacked runs` when every attacked run has a label, else `the 86 labelled of the 433 attacked runs`.
 * @param labelled attacked runs with a label (the rates' n); `attacked` attacked runs, labelled or not.
 * @param noun what a run is called (`runs`, `trajectories`); `all` puts "all" before the attacked count.
 */
export function ratePopulationText(labelled: number, attacked: number, noun = "runs", all = false): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const of = `${all ? "all " : ""}${n(attacked)} attacked ${noun}`;
  return labelled === attacked ? `${all ? "" : "the "}${of}` : `the ${n(labelled)} labelled of ${all ? "" : "the "}${of}`;
}
