/**
 * Checks every query of a Grafana dashboard (panel targets and variable queries) against a
 * catalogue of the Prometheus metrics that exist: each metric must exist, and each label a query
 * selects on, groups by or asks values of must be a label of the metrics it applies to. Problems
 * come back all at once, each as `path: message`.
 */
import type { PrometheusCatalogue } from "./prometheus-catalogue.js";
import { type PromqlReferences, promqlReferences, variableQueryReferences } from "./promql-references.js";

/** One query of a dashboard and where it is. */
export interface DashboardQuery {
  path: string;
  kind: "expr" | "variable";
  text: string;
}

interface Panel {
  title?: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string }>;
}

interface Dashboard {
  panels?: Panel[];
  templating?: { list?: Array<{ name?: string; type?: string; query?: unknown; definition?: string }> };
}

/**
 * Every PromQL expression and Prometheus variable query of a dashboard, rows' panels included.
 *
 * @example
 * ```ts
 * for (const q of dashboardQueries(JSON.parse(text))) console.log(q.path, q.text);
 * ```
 */
export function dashboardQueries(dashboard: unknown): DashboardQuery[] {
  const d = dashboard as Dashboard;
  const out: DashboardQuery[] = [];
  const visit = (panels: Panel[] | undefined, path: string) => {
    panels?.forEach((panel, i) => {
      const here = `${path}[${i}]`;
      panel.targets?.forEach((target, j) => {
        if (typeof target.expr === "string")
          out.push({ path: `${here}.targets[${j}].expr (${panel.title})`, kind: "expr", text: target.expr });
      });
      visit(panel.panels, `${here}.panels`);
    });
  };
  visit(d.panels, "panels");
  d.templating?.list?.forEach((variable, i) => {
    if (variable.type !== "query") return;
    const query =
      typeof variable.query === "string" ? variable.query : (variable.query as { query?: string })?.query;
    const path = `templating.list[${i}].query (${variable.name})`;
    out.push({ path, kind: "variable", text: query ?? variable.definition ?? "" });
  });
  return out;
}

function checkReferences(refs: PromqlReferences, catalogue: PrometheusCatalogue): string[] {
  const problems: string[] = [];
  const candidates = (labels: readonly string[]) =>
    [...catalogue.values()].filter((m) => labels.every((l) => m.labels.has(l)));
  if (refs.selectors.length === 0) problems.push("selects no series");
  for (const s of refs.selectors) {
    if (s.metric === undefined) {
      if (candidates(s.labels).length === 0)
        problems.push(`no metric has all the labels ${s.labels.join(", ")} of a selector without a name`);
      continue;
    }
    const metric = catalogue.get(s.metric);
    if (!metric) {
      problems.push(`${s.metric} is not a metric Jobsight sends`);
      continue;
    }
    for (const label of s.labels)
      if (!metric.labels.has(label))
        problems.push(`${s.metric} has no label ${label} (it has ${[...metric.labels].sort().join(", ")})`);
  }
  for (const g of refs.groupings) {
    const scope = refs.selectors.filter((s) => s.at >= g.from && s.at <= g.to);
    for (const label of g.labels) {
      for (const s of scope) {
        if (s.metric === undefined) {
          if (!candidates(s.labels).some((m) => m.labels.has(label)))
            problems.push(`${g.clause} (${label}): no metric matching the selector has it`);
        } else if (catalogue.get(s.metric) && !catalogue.get(s.metric)?.labels.has(label))
          problems.push(`${g.clause} (${label}): ${s.metric} has no such label`);
      }
    }
  }
  return problems;
}

/**
 * Problems of the dashboard's queries against the catalogue, as `path: message`; empty when every
 * metric and label exists.
 *
 * @example
 * ```ts
 * expect(checkDashboardQueries(dashboardQueries(dashboard), catalogue)).toEqual([]);
 * ```
 */
export function checkDashboardQueries(
  queries: readonly DashboardQuery[],
  catalogue: PrometheusCatalogue,
): string[] {
  return queries.flatMap((q) => {
    let refs: PromqlReferences;
    try {
      refs = q.kind === "expr" ? promqlReferences(q.text) : variableQueryReferences(q.text);
    } catch (error) {
      return [`${q.path}: ${(error as Error).message}`];
    }
    return checkReferences(refs, catalogue).map((message) => `${q.path}: ${message}`);
  });
}
