/**
 * The fewest labelled items a group needs for a human or calibrated estimate (`estimate --min-sampled`'s default):
 * below it the estimate is undefined (`too_few_labelled_items`). One constant, read by `estimate` and by `sample`,
 * which warns when its allocation leaves a group under it (new-user report 31, L6).
 */
export const DEFAULT_MIN_SAMPLED = 10;
