/**
 * The one name of a group of runs that do not record a field (agent model, condition, suite, attack): `(none)`.
 * Every output that groups runs names the group so (label's summary, committee, estimate, compare, report, view,
 * sample), and `--where field=(none)` selects the same runs (`../store/where.ts`). New user 35: label's summary
 * called a missing model `(unknown)` where every other command said `(none)`, and dropped a missing condition from
 * the conditions it listed.
 */
export const NO_VALUE = "(none)";
