import { readFileSync } from "node:fs";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import { unpadTables } from "../../test/markdown.js";
import { standardInputs } from "../decode/standard/standard-inputs.js";
import {
  aggregateMetricDefinitions,
  jobMetricDefinitions,
  type MetricDefinition,
} from "./metric-definitions.js";
import { ObservationAttributes, SeriesAttributes } from "./metric-names.js";
import { legacyNamesMarkdown, metricTableMarkdown } from "./metric-table.js";
import { observationMappings } from "./observation-mapping.js";

const conventionValues = (prefix: string) =>
  new Set(
    Object.entries(semconv)
      .filter(([key, value]) => key.startsWith(prefix) && typeof value === "string")
      .map(([, value]) => value as string),
  );
const conventionMetrics = conventionValues("METRIC_");
const conventionAttributes = conventionValues("ATTR_");

const readme = unpadTables(readFileSync(new URL("../../README.md", import.meta.url), "utf8"));

describe("metric names", () => {
  it("has one mapping per per-job metric, in the same order", () => {
    expect(observationMappings.map((m) => m.definition.name)).toEqual(
      jobMetricDefinitions.map((d) => d.name),
    );
  });

  it("follows the semantic-convention naming rules", () => {
    const all: MetricDefinition[] = [...jobMetricDefinitions, ...aggregateMetricDefinitions];
    const names = [...all.map((d) => d.name), ...all.flatMap((d) => (d.legacyName ? [d.legacyName] : []))];
    expect(new Set(names).size).toBe(names.length);
    for (const d of all) {
      expect(d.name).toMatch(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/);
      expect(["By", "s", "1", "W", "Cel"].includes(d.unit) || /^\{[a-z]+\}$/.test(d.unit)).toBe(true);
    }
  });

  it("uses a semantic-convention name wherever one exists, jobsight.* only where none does", () => {
    for (const d of [...jobMetricDefinitions, ...aggregateMetricDefinitions]) {
      if (d.name.startsWith("jobsight.")) expect(conventionMetrics.has(d.name)).toBe(false);
      else expect(conventionMetrics.has(d.name), d.name).toBe(true);
      // A renamed metric keeps its 0.1 name for the compatibility option; others have none.
      if (d.legacyName) expect(d.legacyName).toMatch(/^jobsight\.job\./);
      expect(d.legacyName === undefined).toBe(d.name.startsWith("jobsight."));
    }
    for (const key of [...Object.values(SeriesAttributes), ...Object.values(ObservationAttributes)]) {
      if (!key.startsWith("jobsight.")) expect(conventionAttributes.has(key), key).toBe(true);
    }
  });

  it("agrees with the standard-input table on the unit and kind of every name both use", () => {
    // One owner per name: what Jobsight sends as a convention metric, it also reads as one.
    const inputs = new Map(standardInputs.map((i) => [i.name, i]));
    const shared = jobMetricDefinitions.filter((d) => inputs.has(d.name));
    expect(shared.map((d) => d.name)).toEqual(
      expect.arrayContaining(["container.memory.usage", "container.cpu.time", "hw.gpu.utilization"]),
    );
    for (const d of shared) {
      expect([d.name, d.unit, d.instrument]).toEqual([
        d.name,
        inputs.get(d.name)!.unit,
        inputs.get(d.name)!.instrument,
      ]);
    }
  });

  it("is documented in the README exactly as defined", () => {
    expect(readme).toContain(unpadTables(metricTableMarkdown(jobMetricDefinitions)));
    expect(readme).toContain(unpadTables(metricTableMarkdown(aggregateMetricDefinitions)));
    expect(readme).toContain(unpadTables(legacyNamesMarkdown(jobMetricDefinitions)));
  });
});
