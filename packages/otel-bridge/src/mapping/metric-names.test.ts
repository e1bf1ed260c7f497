import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unpadTables } from "../../test/markdown.js";
import { aggregateMetricDefinitions, jobMetricDefinitions, type MetricDefinition } from "./metric-names.js";
import { metricTableMarkdown } from "./metric-table.js";
import { observationMappings } from "./observation-mapping.js";

const readme = unpadTables(readFileSync(new URL("../../README.md", import.meta.url), "utf8"));

describe("metric names", () => {
  it("has one mapping per per-job metric, in the same order", () => {
    expect(observationMappings.map((m) => m.definition.name)).toEqual(
      jobMetricDefinitions.map((d) => d.name),
    );
  });

  it("follows the semantic-convention naming rules", () => {
    const all: MetricDefinition[] = [...jobMetricDefinitions, ...aggregateMetricDefinitions];
    expect(new Set(all.map((d) => d.name)).size).toBe(all.length);
    for (const d of all) {
      expect(d.name).toMatch(/^jobsight\.[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/);
      expect(["By", "s", "1", "W", "Cel"].includes(d.unit) || /^\{[a-z]+\}$/.test(d.unit)).toBe(true);
    }
  });

  it("is documented in the README exactly as defined", () => {
    expect(readme).toContain(unpadTables(metricTableMarkdown(jobMetricDefinitions)));
    expect(readme).toContain(unpadTables(metricTableMarkdown(aggregateMetricDefinitions)));
  });
});
