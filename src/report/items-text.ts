/**
 * What the report's disagreement list is over, in words (new-user report 17: `report --committee` said "48 of 48
 * disagreements listed" while `committee` said "not unanimous on 32 of 66": the list also holds the 16 unattacked
 * trajectories where the judges' labels differ, which the committee's agreement figures leave out). The list keeps
 * them (a judge giving an unattacked run a compliance label is worth reading); both outputs say the split.
 */
import type { ReportModel } from "./data.js";

/**
 * The population of the committee's disagreement list, e.g. `32 on attacked trajectories, the committee's "not
 * unanimous" count; 16 on unattacked ones, which its agreement figures leave out`; "" without a committee or
 * when no listed item is unattacked (the list is then exactly the committee's attacked disagreements).
 */
export function itemsPopulationText(m: Pick<ReportModel, "committee" | "items_total" | "items_unattacked">): string {
  const un = m.items_unattacked ?? 0;
  if (!m.committee || un === 0) return "";
  return `${m.items_total - un} on attacked trajectories, the committee's "not unanimous" count; ${un} on unattacked ones, which its agreement figures leave out`;
}
