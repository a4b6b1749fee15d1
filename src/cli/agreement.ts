import type { Command } from "commander";
import { formatRatingsAgreement, ratingsAgreement, readRatings, RatingsError } from "../agree/ratings.js";
import { DEFAULT_BOOTSTRAP } from "../committee/report.js";
import { UsageError } from "../errors.js";
import { intOption, printJson } from "./util.js";

/** `ipi-judge agreement FILE`: every agreement coefficient that applies to a ratings table. */
export function registerAgreement(program: Command): void {
  program
    .command("agreement")
    .description("Agreement coefficients of any ratings table (CSV: one row per item, one column per rater; JSON: {categories?, ratings}).")
    .argument("<file>", "ratings.csv or ratings.json")
    .option("--categories <list>", "declared categories, comma-separated, in order (default: the values found)")
    .option("--weights <scheme>", "also a weighted kappa (two raters): linear | quadratic, by category order")
    .option("--bootstrap <n>", "bootstrap resamples for percentile CIs (0 = none)", "0")
    .option("--seed <s>", "bootstrap seed", String(DEFAULT_BOOTSTRAP.seed))
    .option("--id-column <name>", "CSV column holding item ids (not a rater); default: a column named like an id (id, item_id, trajectory_id, ...)")
    .option("--no-id-column", "no column holds item ids: every column is a rater")
    .option("--json", "print one JSON object")
    .addHelpText(
      "after",
      `
CSV: the header row names the raters; an empty cell is a missing rating; spaces around a rating are dropped.
Ratings found in the data that differ only in letter case ("Benign", "benign") are refused: declare the
categories to count them apart. A column named like an id (id, item_id, trajectory_id, ...) holds item ids, not ratings; an item on several rows is counted once (rows that
contradict each other leave it out) and listed. A column that looks like ids under another name is refused,
named. A Label Studio JSON-MIN export is refused: it has one annotator per task. JSON: {"categories": [...],
"raters": [...], "ratings": [[...], ...]} with null for missing. Two raters: Cohen's kappa with SE, Wald CI
(and bootstrap CI with --bootstrap N), weighted kappa with --weights, Gwet's AC1, PABAK, Krippendorff's alpha
and percent agreement. Three or more: Fleiss' kappa, Gwet's AC1, Krippendorff's alpha and agreement.
Undefined coefficients are null with a reason.`,
    )
    .action(async (file: string, o) => {
      if (o.weights !== undefined && !["linear", "quadratic"].includes(o.weights)) throw new UsageError(`--weights must be linear or quadratic, not "${o.weights}"`);
      const B = intOption(o.bootstrap, "--bootstrap", 0);
      const seed = intOption(o.seed, "--seed", 0);
      const categories = o.categories === undefined ? undefined : String(o.categories).split(",").map((s: string) => s.trim()).filter(Boolean);
      if (categories && new Set(categories).size !== categories.length) throw new UsageError("--categories lists a category twice");
      try {
        const table = readRatings(file, { idColumn: o.idColumn });
        const r = ratingsAgreement(table, { file, categories, weights: o.weights, bootstrap: { B, seed } });
        if (o.json) printJson(r);
        else process.stdout.write(formatRatingsAgreement(r) + "\n");
      } catch (e) {
        if (e instanceof RatingsError) throw new UsageError(e.message);
        throw e;
      }
    });
}
