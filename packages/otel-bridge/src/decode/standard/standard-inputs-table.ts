import { JOB_ATTRIBUTE_ORDER } from "./standard-identity.js";
import type { StandardInput } from "./standard-inputs.js";

/**
 * The Markdown table of standard inputs (which input fills which sample field and feeds which
 * prediction and diagnosis) and the list of job attributes, as the bridge README carries them; a
 * test checks the README against it so the documentation cannot drift from the code.
 *
 * @example
 * ```ts
 * console.log(standardInputsMarkdown(standardInputs));
 * ```
 */
export function standardInputsMarkdown(inputs: readonly StandardInput[]): string {
  const rows = inputs.map((i) => {
    const instrument = i.instrument === "counter" ? "Sum (cumulative)" : "Gauge or UpDownCounter";
    return `| \`${i.name}\` | \`${i.unit}\` | ${instrument} | ${i.scope} | \`${i.field}\` | ${i.combine} | ${i.feeds} |`;
  });
  const order = JOB_ATTRIBUTE_ORDER.map((a, n) => `${n + 1}. \`${a}\``);
  return [
    "| Input | Unit | Type | Scope | Fills | Several points | Feeds |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
    "",
    "The job of a point is found from these attributes (point, scope or resource), first match wins:",
    "",
    ...order,
    `${order.length + 1}. \`host.name\` + the point's time, for node-scope inputs only: Jobsight's receiver gives the point to the job its records put alone on that node then (see \`hostOnly\`)`,
    `${order.length + 2}. \`container.id\`, for container- and process-scope inputs only: Jobsight's receiver gives the point to the job whose record lists that container (\`containerIds\`, which Jobsight's Kubernetes collector writes from the pod's container statuses; see \`containerOnly\`)`,
  ].join("\n");
}
