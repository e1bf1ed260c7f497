import type { ApplyOutcome, ObservationMapping } from "./mapping-contract.js";
import { jobMetricDefinitions } from "./metric-definitions.js";
import { JobMetricNames as M, SeriesAttributes as S } from "./metric-names.js";
import { accept } from "./point-values.js";

/**
 * The job's own progress (`progress.done`, `progress.total`, `progress.unit`) as two gauges. No
 * semantic convention names a job's progress, so both are `jobsight.job.progress.*`, the same
 * under `legacy` names; the total is `.limit`, as the bridge's other maxima, since Prometheus
 * reads a `_total` suffix as a counter. Each point carries the unit, so either alone says what it
 * counts.
 */

const filled: ApplyOutcome = { section: "progress" };

function progressField(name: string, field: "done" | "total"): ObservationMapping {
  const definition = jobMetricDefinitions.find((d) => d.name === name);
  if (!definition) throw new Error(`no definition for ${name}`);
  return {
    definition,
    extract: (sample) => {
      const progress = sample.progress;
      if (!progress) return [];
      return [
        {
          value: progress[field],
          attributes: progress.unit === undefined ? [] : [[S.progressUnit, progress.unit]],
        },
      ];
    },
    apply: (draft, value, attributes) => {
      const accepted = accept(value, "double");
      if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
      // The schema wants a positive total: refusing the point here keeps the rest of the sample.
      if (field === "total" && accepted === 0) return { reject: `${name}: value is 0` };
      draft.progress ??= {};
      draft.progress[field] = accepted;
      const unit = attributes.get(S.progressUnit);
      if (typeof unit === "string" && unit !== "") draft.progress.unit = unit;
      return filled;
    },
  };
}

/** `progress.done`: the units of work the job reports done so far. */
export const progressDone = progressField(M.progressDone, "done");
/** `progress.total`: the units of work the job reports it has to do in all. */
export const progressLimit = progressField(M.progressLimit, "total");
