import type { MetricDefinition } from "./metric-names.js";

/**
 * The Markdown table of metric definitions that the README carries; a test checks the README
 * against it so the documentation cannot drift from the code.
 *
 * @example
 * ```ts
 * console.log(metricTableMarkdown(jobMetricDefinitions));
 * ```
 */
export function metricTableMarkdown(definitions: readonly MetricDefinition[]): string {
  const rows = definitions.map((d) => {
    const instrument = d.instrument === "counter" ? "Sum (cumulative, monotonic)" : "Gauge";
    const attributes = d.attributes.length > 0 ? d.attributes.map((a) => `\`${a}\``).join(", ") : "";
    return `| \`${d.name}\` | \`${d.unit}\` | ${instrument} | ${d.valueType} | \`${d.source}\` | ${attributes} | ${d.description} |`;
  });
  return [
    "| Metric | Unit | Type | Value | From | Attributes | Meaning |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}
