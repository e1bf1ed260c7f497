import type { UsageSample } from "@jobsight/schemas";
import type { ScalarAttribute as AttrValue } from "./attribute-values.js";
import type { MetricDefinition } from "./metric-definitions.js";
import type { MetricNameSet } from "./metric-names.js";
import type { AttributeLookup } from "./point-attributes.js";

// What a metric's mapping is, apart from the mappings themselves (observation-mapping.ts), so that
// mappings kept in files of their own depend on the contract, not on the list that holds them.

/** One point of one metric, before the job identity attributes are added. */
export interface ExtractedPoint {
  value: number;
  attributes: Array<[string, AttrValue]>;
}

/** One section of a sample under construction. */
export type Section = Record<string, unknown>;

/**
 * A sample being rebuilt from points. Sections are created by their first point (most samples
 * lack some); `points` counts points per section (0 once a section is dropped), for rejections.
 */
export interface SampleDraft {
  memory?: Section;
  cpu?: Section;
  io?: Section;
  pressure?: Section;
  pids?: number;
  /** GPUs by index (MIG instances by `<index>/gi<id>`); created with the first GPU point (most samples have none). */
  gpus?: Map<number | string, Section>;
  /** Notable processes by pid; created with the first process point. */
  processes?: Map<number, Section>;
  progress?: Section;
  points: Record<string, number>;
}

/**
 * What became of one received point: the section it filled, why it was refused, or that it
 * feeds no field (a standard input's idle CPU mode: skipped, not refused).
 */
export type ApplyOutcome = { section: string } | { reject: string } | { skip: "not_applicable" };

/** How one metric maps to and from a sample. */
export interface ObservationMapping {
  definition: MetricDefinition;
  /** The points of `sample`, with the series attribute keys of `names` (default `conventions`). */
  extract(sample: UsageSample, names?: MetricNameSet): ExtractedPoint[];
  apply(draft: SampleDraft, value: number, attributes: AttributeLookup): ApplyOutcome;
}
