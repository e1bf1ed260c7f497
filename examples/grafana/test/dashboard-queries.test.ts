import { readFileSync } from "node:fs";
import {
  AggregateMetricNames,
  aggregateMetricDefinitions,
  JobMetricNames,
  jobMetricDefinitions,
  ObservationAttributes,
  SeriesAttributes,
} from "@jobsight/otel-bridge";
import { describe, expect, it } from "vitest";
import {
  attributeKeys,
  componentType,
  dropsMetric,
  filterConditions,
  labelEdits,
  metricStatements,
  parseCollectorConfig,
  resolvePipelines,
  undefinedComponents,
} from "./collector-config.js";
import { checkDashboardQueries, dashboardQueries } from "./dashboard-check.js";
import { prometheusCatalogue, prometheusNameOf } from "./prometheus-catalogue.js";
import { prometheusLabelName, prometheusMetricName } from "./prometheus-names.js";
import { promqlReferences, variableQueryReferences } from "./promql-references.js";

const read = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), "utf8");
const dashboard = JSON.parse(read("jobsight-dashboard.json"));
const collector = parseCollectorConfig(read("otel-collector.yaml"));
const readme = read("README.md");

/** The values JOBSIGHT_PROMETHEUS_MODE may take; the first is the default. */
const modes = ["aggregated", "per_job"] as const;
const envFor = (mode: string) => ({ JOBSIGHT_PROMETHEUS_MODE: mode });
const pipelineTo = (exporterType: string, mode: string) =>
  resolvePipelines(collector, envFor(mode)).filter((p) =>
    p.exporters.some((e) => componentType(e) === exporterType),
  );

/** The transform statements on the way to Prometheus (the same in both modes). */
const prometheusEdits = labelEdits(
  pipelineTo("prometheus", modes[0]).flatMap((p) =>
    p.processors
      .filter((id) => componentType(id) === "transform")
      .flatMap((id) => metricStatements(collector.processors?.[id])),
  ),
);
const catalogue = prometheusCatalogue(prometheusEdits);

describe("Prometheus names", () => {
  it("follow the Collector's translation rules", () => {
    expect(prometheusMetricName({ name: "jobsight.job.memory.usage", unit: "By", kind: "gauge" })).toBe(
      "jobsight_job_memory_usage_bytes",
    );
    expect(prometheusMetricName({ name: "jobsight.job.cpu.time", unit: "s", kind: "counter" })).toBe(
      "jobsight_job_cpu_time_seconds_total",
    );
    expect(
      prometheusMetricName({ name: "jobsight.job.memory.oom_kill.count", unit: "{event}", kind: "counter" }),
    ).toBe("jobsight_job_memory_oom_kill_count_total");
    expect(prometheusMetricName({ name: "jobsight.job.gpu.utilization", unit: "1", kind: "gauge" })).toBe(
      "jobsight_job_gpu_utilization_ratio",
    );
    expect(prometheusMetricName({ name: "x.utilization", unit: "1", kind: "sum" })).toBe("x_utilization");
    expect(prometheusMetricName({ name: "jobsight.job.gpu.temperature", unit: "Cel", kind: "gauge" })).toBe(
      "jobsight_job_gpu_temperature_celsius",
    );
    expect(prometheusMetricName({ name: "jobsight.jobs.count", unit: "{job}", kind: "gauge" })).toBe(
      "jobsight_jobs_count",
    );
    // A unit word the name already holds is not repeated; a rate unit gets "per".
    expect(prometheusMetricName({ name: "disk.bytes.read", unit: "By", kind: "counter" })).toBe(
      "disk_bytes_read_total",
    );
    expect(prometheusMetricName({ name: "net.io", unit: "By/s", kind: "gauge" })).toBe(
      "net_io_bytes_per_second",
    );
    expect(prometheusLabelName("jobsight.gpu.pci_bus_id")).toBe("jobsight_gpu_pci_bus_id");
    expect(prometheusLabelName("user.name")).toBe("user_name");
  });

  it("are distinct for every metric the bridge defines", () => {
    const all = [...jobMetricDefinitions, ...aggregateMetricDefinitions];
    expect(new Set(all.map(prometheusNameOf)).size).toBe(all.length);
    expect(catalogue.size).toBe(all.length);
  });

  it("are the ones the README's table lists", () => {
    const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    for (const definition of [...jobMetricDefinitions, ...aggregateMetricDefinitions]) {
      const row = `\\|\\s*\`${escapeRegExp(definition.name)}\`\\s*\\|\\s*\`${escapeRegExp(prometheusNameOf(definition))}\`\\s*\\|`;
      expect(readme).toMatch(new RegExp(row));
    }
  });
});

describe("PromQL references", () => {
  it("finds metrics, matcher labels, and the selectors each grouping applies to", () => {
    const refs = promqlReferences(
      'sum(rate(a_total{x="1", y=~"$v"}[$__rate_interval] offset 5m)) by (z) / on (w) group_left ' +
        'max by (q) ({__name__="c", k!="{}"}) or count_values("v", d) > bool 0',
    );
    expect(refs.selectors.map(({ metric, labels }) => ({ metric, labels }))).toEqual([
      { metric: "a_total", labels: ["x", "y"] },
      { metric: "c", labels: ["k"] },
      { metric: "d", labels: [] },
    ]);
    const appliesTo = (from: number, to: number) =>
      refs.selectors.filter((s) => s.at >= from && s.at <= to).map((s) => s.metric);
    expect(refs.groupings.map((g) => [g.clause, g.labels, appliesTo(g.from, g.to)])).toEqual([
      ["by", ["z"], ["a_total"]],
      ["on", ["w"], ["a_total", "c", "d"]],
      ["by", ["q"], ["c"]],
    ]);
  });

  it("reads Grafana's label_values variable queries and refuses what it cannot read", () => {
    const refs = variableQueryReferences(
      'label_values({jobsight_cluster=~"$cluster", user_name!=""}, user_name)',
    );
    expect(refs.selectors.map((s) => s.labels)).toEqual([["jobsight_cluster", "user_name"]]);
    expect(refs.groupings.map((g) => g.labels)).toEqual([["user_name"]]);
    expect(() => variableQueryReferences("metrics(jobsight_.*)")).toThrow(/unsupported variable query/);
    expect(() => promqlReferences('{__name__=~"jobsight_.*"}')).toThrow(/cannot be checked/);
    expect(() => promqlReferences("sum(a")).toThrow(/unbalanced/);
  });
});

describe("the dashboard", () => {
  const queries = dashboardQueries(dashboard);

  it("queries only metrics and labels that reach Prometheus", () => {
    expect(queries.length).toBeGreaterThan(20);
    expect(checkDashboardQueries(queries, catalogue)).toEqual([]);
  });

  it("would be caught querying a wrong name or label", () => {
    const wrong = JSON.parse(
      JSON.stringify(dashboard)
        .replace("container_cpu_time_seconds_total", "container_cpu_time_total")
        .replace(
          "sum by (jobsight_partition) (jobsight_jobs_memory_usage_bytes",
          "sum by (partition) (jobsight_jobs_memory_usage_bytes",
        ),
    );
    const problems = checkDashboardQueries(dashboardQueries(wrong), catalogue);
    expect(problems).toEqual([
      expect.stringMatching(
        /targets\[0\]\.expr \(Memory used vs requested, by partition\): by \(partition\): jobsight_jobs_memory_usage_bytes has no such label$/,
      ),
      expect.stringMatching(
        /targets\[0\]\.expr \(CPU cores used vs requested, by user\): container_cpu_time_total is not a metric Jobsight sends$/,
      ),
    ]);
    // A per-job metric has no partition: selecting on one is refused too.
    expect(
      checkDashboardQueries(
        [{ path: "q", kind: "expr", text: 'container_memory_usage_bytes{jobsight_partition="gpu"}' }],
        catalogue,
      ),
    ).toEqual([expect.stringMatching(/^q: container_memory_usage_bytes has no label jobsight_partition/)]);
    // The 0.1 names are what a collector sends only with --otlp-names legacy: not queried.
    expect(
      checkDashboardQueries(
        [{ path: "q", kind: "expr", text: "jobsight_job_memory_usage_bytes" }],
        catalogue,
      ),
    ).toEqual([expect.stringMatching(/^q: jobsight_job_memory_usage_bytes is not a metric Jobsight sends/)]);
  });

  it("shows jobs, memory used and requested, CPU, GPU and OOM kills", () => {
    const used = new Set(
      queries.flatMap((q) =>
        q.kind === "expr" ? promqlReferences(q.text).selectors.map((s) => s.metric) : [],
      ),
    );
    const wanted = [
      AggregateMetricNames.jobs,
      AggregateMetricNames.memoryUsage,
      AggregateMetricNames.memoryLimit,
      AggregateMetricNames.cpuLimit,
      AggregateMetricNames.gpuUtilization,
      AggregateMetricNames.gpuMemoryUsage,
      JobMetricNames.memoryUsage,
      JobMetricNames.memoryLimit,
      JobMetricNames.cpuTime,
      JobMetricNames.memoryOomKill,
      JobMetricNames.gpuUtilization,
      JobMetricNames.gpuMemoryUsage,
    ];
    const all = [...jobMetricDefinitions, ...aggregateMetricDefinitions];
    for (const name of wanted)
      expect(used, name).toContain(prometheusNameOf(all.find((d) => d.name === name)!));
  });

  it("is a Grafana dashboard with a Prometheus data source variable and cluster/user/partition filters", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const variables = dashboard.templating.list as Array<{ name: string; type: string; query: unknown }>;
    expect(variables.map((v) => v.name)).toEqual(["DS_PROMETHEUS", "cluster", "user", "partition"]);
    expect(variables[0]).toMatchObject({ type: "datasource", query: "prometheus" });
    const panels = dashboard.panels as Array<{
      id: number;
      type: string;
      datasource?: unknown;
      targets?: Array<{ refId: string; datasource?: unknown }>;
    }>;
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const panel of panels.filter((p) => p.type !== "row")) {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, kept as text.
      expect(panel.datasource, `panel ${panel.id}`).toEqual({ type: "prometheus", uid: "${DS_PROMETHEUS}" });
      for (const target of panel.targets ?? []) expect(target.datasource).toEqual(panel.datasource);
      const refIds = (panel.targets ?? []).map((t) => t.refId);
      expect(new Set(refIds).size, `panel ${panel.id} refIds`).toBe(refIds.length);
    }
  });
});

describe("the Collector configuration", () => {
  it("receives OTLP on 4317 (gRPC) and 4318 (HTTP)", () => {
    expect(collector.receivers?.otlp).toMatchObject({
      protocols: {
        grpc: { endpoint: expect.stringMatching(/:4317$/) },
        http: { endpoint: expect.stringMatching(/:4318$/) },
      },
    });
  });

  it.each(modes)("references only defined components in %s mode, and uses every one", (mode) => {
    expect(undefinedComponents(collector, envFor(mode))).toEqual([]);
    const used = new Set(
      modes.flatMap((m) =>
        resolvePipelines(collector, envFor(m)).flatMap((p) => [
          ...p.receivers,
          ...p.processors,
          ...p.exporters,
        ]),
      ),
    );
    for (const section of ["receivers", "processors", "exporters"] as const)
      for (const id of Object.keys(collector[section] ?? {})) expect(used, `${section}.${id}`).toContain(id);
  });

  it("fails to start with a mode it does not define", () => {
    expect(undefinedComponents(collector, envFor("per-job"))).toEqual([
      "service.pipelines.metrics/prometheus.processors[1]: filter/prometheus_per-job is not defined",
    ]);
  });

  it("fans the OTLP stream out to the data plane, with the collector token, and to Prometheus", () => {
    const [toJobsight] = pipelineTo("otlp_grpc", modes[0]);
    const [toPrometheus] = pipelineTo("prometheus", modes[0]);
    expect(toJobsight.receivers).toEqual(["otlp"]);
    expect(toPrometheus.receivers).toEqual(["otlp"]);
    for (const p of [toJobsight, toPrometheus]) {
      expect(p.processors[0]).toBe("memory_limiter");
      expect(p.processors.at(-1)).toBe("batch");
    }
    const exporter = collector.exporters?.[toJobsight.exporters[0]] as { headers?: Record<string, string> };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the Collector's env syntax, kept as text.
    expect(exporter.headers).toEqual({ authorization: "Bearer ${env:JOBSIGHT_TOKEN}" });
  });

  it("sends the data plane every per-job metric and no aggregate", () => {
    const [toJobsight] = pipelineTo("otlp_grpc", modes[0]);
    const filters = toJobsight.processors.filter((id) => componentType(id) === "filter");
    const kept = (name: string) =>
      !filters.some((id) => dropsMetric(filterConditions(collector.processors?.[id]).metric, name));
    for (const d of jobMetricDefinitions) expect(kept(d.name), d.name).toBe(true);
    for (const d of aggregateMetricDefinitions) expect(kept(d.name), d.name).toBe(false);
  });

  it("gives Prometheus only the aggregates in aggregated mode, and the per-job metrics in per-job mode", () => {
    const keptIn = (mode: string) => {
      const [p] = pipelineTo("prometheus", mode);
      const filters = p.processors.filter((id) => componentType(id) === "filter");
      return [...jobMetricDefinitions, ...aggregateMetricDefinitions]
        .map((d) => d.name)
        .filter(
          (name) =>
            !filters.some((id) => dropsMetric(filterConditions(collector.processors?.[id]).metric, name)),
        );
    };
    expect(keptIn("aggregated")).toEqual(aggregateMetricDefinitions.map((d) => d.name));
    expect(keptIn("per_job")).toEqual(
      [...jobMetricDefinitions, ...aggregateMetricDefinitions]
        .map((d) => d.name)
        .filter((n) => n !== JobMetricNames.processMemory),
    );
  });

  it("names only attributes the bridge writes, and copies the cluster onto every series", () => {
    const known = new Set<string>([
      ...Object.values(ObservationAttributes),
      ...Object.values(SeriesAttributes),
    ]);
    for (const [id, processor] of Object.entries(collector.processors ?? {})) {
      const { metric, datapoint } = filterConditions(processor);
      for (const ottl of [...metricStatements(processor), ...metric, ...datapoint])
        for (const key of attributeKeys(ottl)) expect(known, `${id}: ${ottl}`).toContain(key);
    }
    expect(prometheusEdits.copies).toContainEqual({
      to: ObservationAttributes.cluster,
      from: ObservationAttributes.cluster,
    });
    for (const metric of catalogue.values())
      expect(metric.labels, metric.otlpName).toContain("jobsight_cluster");
  });
});
