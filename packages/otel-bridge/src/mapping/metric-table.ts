import type { MetricDefinition } from "./metric-definitions.js";
import { LegacySeriesAttributes, SeriesAttributes } from "./metric-names.js";

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

/**
 * The Markdown table of the names release 0.1 sent that now follow the semantic conventions
 * (metrics and series attribute keys), as the README carries it; `names: "legacy"` sends the left
 * column, and receivers read both.
 *
 * @example
 * ```ts
 * console.log(legacyNamesMarkdown(jobMetricDefinitions));
 * ```
 */
export function legacyNamesMarkdown(definitions: readonly MetricDefinition[]): string {
  const metrics = definitions.flatMap((d) =>
    d.legacyName ? [`| metric | \`${d.legacyName}\` | \`${d.name}\` |`] : [],
  );
  const keys = Object.keys(LegacySeriesAttributes) as Array<keyof typeof LegacySeriesAttributes>;
  const attributes = keys.map(
    (k) => `| attribute | \`${LegacySeriesAttributes[k]}\` | \`${SeriesAttributes[k]}\` |`,
  );
  return [
    "| Kind | 0.1 name (`legacy`) | Name now (`conventions`) |",
    "| --- | --- | --- |",
    ...metrics,
    ...attributes,
  ].join("\n");
}
