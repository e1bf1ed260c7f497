/** Options of `fitConformal`. */
export type ConformalOptions = {
  /**
   * Share of recommended jobs allowed to need more than the recommended value, per bin.
   * @default 0.008
   */
  missRate?: number;
  /**
   * Share of jobs allowed below the range's low end (its high end is the recommended value):
   * nominal range coverage is 1 − missRate − this. Small, so that the range's coverage and the
   * value's confidence are nearly one promise.
   * @default 0.01
   */
  rangeMiss?: number;
  /**
   * Mondrian bins of the spread (difficulty); each gets its own score quantiles.
   * @default 6
   */
  bins?: number;
  /**
   * Bins of the predicted size (centre `m`), crossed with the spread bins: big jobs weigh most in
   * the weighted under-prediction, so they get quantiles of their own.
   * @default 3
   */
  sizeBins?: number;
  /**
   * Fewest calibration examples per bin (bins merge below it); also the pseudo-jobs at the
   * table's rate a cell's confidence is shrunk with.
   * @default 400
   */
  minPerBin?: number;
  /**
   * Share of jobs, the widest, for which the predictor abstains instead of guessing wide.
   * @default 0.08
   */
  abstainShare?: number;
  /**
   * Also bound the share of usage (not only of jobs) that is under-predicted, per bin, at this rate
   * (0 turns it off).
   * @default 0.015
   */
  usageMissRate?: number;
  /**
   * Share of its request from which a job keeps its request: a calibrated value at least this
   * share of the request is raised to it. Jobs predicted that close to their request often run to
   * it, and cutting them saves little against killing the longest jobs. 0: never.
   * @default the resource's (`ResourceSpec.keepRequestAbove`: 0.5 for walltime, else never)
   */
  keepRequestAbove?: number;
  /**
   * Smallest spread used to scale scores (log scale).
   * @default 0.02
   */
  spreadFloor?: number;
  /**
   * Correct the levels so that the promises hold out of time (the newer half of the examples
   * checked under tables fitted on the jobs before it), moving a level only when the check misses
   * the nominal rate by more than sampling noise; off: the nominal levels, in sample.
   * @default true
   */
  outOfTimeCheck?: boolean;
};
