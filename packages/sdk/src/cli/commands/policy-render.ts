import type {
  Policy,
  PolicyAuditRecord,
  PolicySimulation,
  ResourceName,
  ResourceValues,
} from "@jobsight/schemas";
import { renderTable } from "../table.js";
import type { Style } from "../terminal-style.js";

/** Every resource a policy governs, in the order they are reported. */
export const RESOURCES: readonly ResourceName[] = ["memory", "cores", "gpus", "gpuMemory", "walltime"];

const GiB = 2 ** 30;
const trim = (n: number) => String(Number(n.toFixed(2)));

/**
 * An amount of a resource for a platform team: memory in GiB and walltime in hours, so that a
 * floor, a cap and a week's total read in the same unit (sbatch's `1-00:00:00` does not add up).
 *
 * @example
 * ```ts
 * formatAmount("memory", 24 * 2 ** 30); // "24 GiB"
 * formatAmount("walltime", 5400); // "1.5 h"
 * ```
 */
export function formatAmount(resource: ResourceName, value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  if (resource === "memory" || resource === "gpuMemory") return `${trim(value / GiB)} GiB`;
  if (resource === "walltime") return `${trim(value / 3600)} h`;
  return trim(value);
}

const percent = (fraction: number) => `${Math.round(fraction * 100)}%`;

function perResource(
  values: Partial<Record<ResourceName, number>>,
  show: (r: ResourceName, v: number) => string,
) {
  return RESOURCES.filter((r) => values[r] !== undefined)
    .map((r) => `${r} ${show(r, values[r]!)}`)
    .join(", ");
}

function bounds(rules: { floors?: ResourceValues; caps?: ResourceValues; nodeCapacity?: ResourceValues }) {
  return [
    ["floors", rules.floors],
    ["caps", rules.caps],
    ["node capacity", rules.nodeCapacity],
  ]
    .filter((entry): entry is [string, ResourceValues] => entry[1] !== undefined)
    .map(([label, values]) => `${label} ${perResource(values, formatAmount)}`)
    .join("; ");
}

/** The policy as a heading and one row per rule it sets. */
export function renderPolicy(policy: Policy, style: Style): string {
  const rows: string[][] = [];
  const add = (rule: string, value: string | undefined) => {
    if (value) rows.push([rule, value]);
  };
  add("floors", policy.floors && perResource(policy.floors, formatAmount));
  add("caps", policy.caps && perResource(policy.caps, formatAmount));
  add("maxDecrease", policy.maxDecrease && perResource(policy.maxDecrease, (_, v) => `-${percent(v)}`));
  add("maxIncrease", policy.maxIncrease && perResource(policy.maxIncrease, (_, v) => `+${percent(v)}`));
  add("neverLower", policy.neverLower?.join(", "));
  add("leaveAlone", policy.leaveAlone?.join(", "));
  add("minConfidence", policy.minConfidence === undefined ? undefined : percent(policy.minConfidence));
  add("optOutUsers", policy.optOutUsers?.join(", "));
  const ns = policy.namespaces;
  add(
    "namespaces",
    ns &&
      [ns.include && `include ${ns.include.join(", ")}`, ns.exclude && `exclude ${ns.exclude.join(", ")}`]
        .filter(Boolean)
        .join("; "),
  );
  add("optOutLabel", policy.optOutLabel);
  for (const p of policy.partitions ?? []) add(`partition ${p.partition}`, bounds(p) || "no rules");
  const heading = `${style.bold(`policy ${policy.name}`)}\n`;
  if (rows.length === 0) return `${heading}${style.dim("no rules: recommendations apply as they are\n")}`;
  return `${heading}\n${renderTable(["rule", "value"], rows)}`;
}

// Most frequent first, so the rule that matters most is read first.
function counts(byKey: Record<string, number>): string {
  const entries = Object.entries(byKey).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return entries.length === 0 ? "—" : entries.map(([k, n]) => `${k} ${n}`).join(", ");
}

function totals(resource: ResourceName, requested: number, applied: number): string {
  // Both zero: no job asked for the resource, so there is nothing to compare.
  if (requested === 0 && applied === 0) return "—";
  const change =
    requested > 0
      ? ` (${applied >= requested ? "+" : "-"}${percent(Math.abs(applied / requested - 1))})`
      : "";
  return `${formatAmount(resource, requested)} → ${formatAmount(resource, applied)}${change}`;
}

const formatTime = (iso: string) =>
  new Date(iso)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");

/** What a simulated policy would have done, one row per resource. */
export function renderSimulation(sim: PolicySimulation, style: Style, cluster?: string): string {
  const where = cluster ? ` on ${cluster}` : "";
  const heading = `${style.bold(`policy ${sim.policy}`)}  ${style.dim(
    `${sim.jobs} recorded prediction${sim.jobs === 1 ? "" : "s"}${where} · ${formatTime(sim.from)} – ${formatTime(sim.to)}`,
  )}\n`;
  if (sim.resources.length === 0) return `${heading}${style.dim("no recorded predictions in this period\n")}`;
  const rows = sim.resources.map((r) => [
    r.resource,
    String(r.jobs),
    String(r.changed),
    String(r.raised),
    String(r.lowered),
    String(r.filled),
    counts(r.held),
    counts(r.limitedBy),
    totals(r.resource, r.requestedTotal, r.appliedTotal),
  ]);
  const headers = ["resource", "jobs", "changed", "raised", "lowered", "filled", "held", "limited by"];
  // The totals cover only jobs that asked for the resource: filled jobs had no request to compare.
  return `${heading}\n${renderTable([...headers, "requested → applied"], rows)}`;
}

/** The recorded changes, in the order given (the server sends them newest first). */
export function renderAudit(records: PolicyAuditRecord[], style: Style): string {
  if (records.length === 0) return style.dim("no changes recorded\n");
  const rows = records.map((r) => [
    formatTime(r.recordedAt),
    r.cluster,
    r.user,
    r.job,
    r.resource,
    `${formatAmount(r.resource, r.before)} → ${formatAmount(r.resource, r.after)}`,
    r.limitedBy ?? "—",
    r.mode,
    r.modelVersion,
  ]);
  const headers = [
    "time",
    "cluster",
    "user",
    "job",
    "resource",
    "before → after",
    "limited by",
    "mode",
    "model",
  ];
  return renderTable(headers, rows);
}
