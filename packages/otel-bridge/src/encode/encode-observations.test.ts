import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { sortSamples, usageSamples } from "../../test/usage-samples.js";
import { decodeExportMetricsRequest, decodeExportMetricsRequestJson } from "../decode/decode.js";
import { decodeObservations } from "../decode/decode-observations.js";
import { ObservationEncodeError } from "../errors.js";
import { scalarOf } from "../mapping/attribute-values.js";
import { jobMetricDefinitions } from "../mapping/metric-definitions.js";
import { LegacyJobMetricNames, JobMetricNames as M } from "../mapping/metric-names.js";
import type { KeyValue, Metric, ResourceMetrics } from "../otlp/otlp-types.js";
import { encodeExportMetricsRequest, encodeExportMetricsRequestJson } from "./encode.js";
import { encodeObservations } from "./encode-observations.js";

const attrs = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, scalarOf(kv.value)]));

function metric(rm: ResourceMetrics, name: string): Metric {
  const found = rm.scopeMetrics[0].metrics.find((m) => m.name === name);
  if (!found) throw new Error(`no metric ${name}`);
  return found;
}

describe("encodeObservations", () => {
  it("puts each (cluster, node) in its own resource with semantic-convention attributes", () => {
    const request = encodeObservations(usageSamples(), {
      scheduler: "slurm",
      resourceAttributes: { "host.name": "x", "service.version": "1.0" },
    });
    expect(request.resourceMetrics.map((rm) => attrs(rm.resource?.attributes))).toEqual([
      {
        "service.name": "jobsight-collector",
        "service.instance.id": "hpc1/gpu07",
        "host.name": "gpu07",
        "jobsight.cluster": "hpc1",
        "jobsight.scheduler": "slurm",
        "service.version": "1.0",
      },
      {
        "service.name": "jobsight-collector",
        "service.instance.id": "hpc1/gpu08",
        "host.name": "gpu08",
        "jobsight.cluster": "hpc1",
        "jobsight.scheduler": "slurm",
        "service.version": "1.0",
      },
      {
        "service.name": "jobsight-collector",
        "service.instance.id": "hpc2/cn001",
        "host.name": "cn001",
        "jobsight.cluster": "hpc2",
        "jobsight.scheduler": "slurm",
        "service.version": "1.0",
      },
    ]);
    expect(request.resourceMetrics[0].scopeMetrics[0].scope).toMatchObject({
      name: "@jobsight/otel-bridge",
      version: "2",
    });
  });

  it("stamps every point with its sample's original time and job identity", () => {
    const [gpu07] = encodeObservations(usageSamples()).resourceMetrics;
    const usage = metric(gpu07, M.memoryUsage);
    expect(usage.unit).toBe("By");
    expect(usage.gauge!.dataPoints.map((p) => [p.timeUnixNano, p.asInt, attrs(p.attributes)])).toEqual([
      [1_796_229_000_000_000_000n, 34_359_738_368n, { "jobsight.job.id": "4242", "user.name": "alice" }],
      [1_796_229_000_123_456_789n, 1_000n, { "jobsight.job.id": "4242", "jobsight.job.step": "0" }],
    ]);
  });

  it("sends cgroup counters as cumulative monotonic sums and readings as gauges", () => {
    const [gpu07] = encodeObservations(usageSamples()).resourceMetrics;
    const cpu = metric(gpu07, M.cpuTime);
    expect(cpu.sum).toMatchObject({ aggregationTemporality: 2, isMonotonic: true });
    expect(cpu.sum!.dataPoints[0]).toMatchObject({ asDouble: 12_345.678901, startTimeUnixNano: 0n });
    const io = metric(gpu07, M.diskIo).sum!.dataPoints;
    expect(io.map((p) => [attrs(p.attributes)["disk.io.direction"], p.asInt])).toEqual([
      ["read", 1_234_567_890_123n],
      ["write", 987_654_321n],
    ]);
    const pressure = metric(gpu07, M.pressure).gauge!.dataPoints;
    expect(pressure[1]).toMatchObject({ asDouble: 0.0057 });
    expect(attrs(pressure[1].attributes)).toMatchObject({
      "jobsight.pressure.resource": "memory",
      "jobsight.pressure.stall": "some",
    });
    const gpu = metric(gpu07, M.gpuUtilization).gauge!.dataPoints;
    expect(gpu.map((p) => [p.asDouble, attrs(p.attributes)["jobsight.gpu.index"]])).toEqual([
      [0.57, 0],
      [0.125, 3],
    ]);
    expect(attrs(gpu[0].attributes)).toMatchObject({
      "hw.id": "GPU-5f3c0d1e-aaaa-bbbb-cccc-0123456789ab",
      "hw.type": "gpu",
    });
    // hw.id is required on hw.* metrics: a GPU without a UUID is named by its index.
    expect(attrs(gpu[1].attributes)).toMatchObject({ "hw.id": "gpu3", "hw.type": "gpu" });
  });

  it("sends the semantic-convention names by default, jobsight.* only where none exists", () => {
    const [gpu07] = encodeObservations(usageSamples()).resourceMetrics;
    const names = gpu07.scopeMetrics[0].metrics.map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "container.memory.usage",
        "container.memory.rss",
        "container.cpu.time",
        "container.disk.io",
        "hw.gpu.utilization",
        "hw.gpu.memory.usage",
        "hw.gpu.memory.limit",
        "hw.power",
        "hw.temperature",
        "process.memory.usage",
        "jobsight.job.memory.peak",
        "jobsight.job.pressure.stall",
      ]),
    );
    expect(names.filter((n) => n.startsWith("jobsight.job.")).sort()).toEqual(
      jobMetricDefinitions
        .filter((d) => d.legacyName === undefined)
        .map((d) => d.name)
        .filter((n) => names.includes(n))
        .sort(),
    );
    const processes = metric(gpu07, "process.memory.usage").gauge!.dataPoints;
    expect(attrs(processes[1].attributes)).toMatchObject({
      "process.pid": 1301,
      "process.command": "pt_data_worker",
      "process.state": "D",
    });
    expect(metric(gpu07, "hw.power").unit).toBe("W");
    expect(metric(gpu07, "hw.temperature").unit).toBe("Cel");
  });

  it("sends the 0.1 jobsight.* names and attribute keys with names: legacy, which decode the same", () => {
    const samples = usageSamples();
    const request = encodeObservations(samples, { names: "legacy" });
    const [gpu07] = request.resourceMetrics;
    expect(gpu07.scopeMetrics[0].scope).toMatchObject({ name: "@jobsight/otel-bridge", version: "1" });
    const names = gpu07.scopeMetrics[0].metrics.map((m) => m.name);
    expect(names.every((n) => n.startsWith("jobsight.job."))).toBe(true);
    expect(names).toEqual(expect.arrayContaining(Object.values(LegacyJobMetricNames)));
    const gpu = metric(gpu07, "jobsight.job.gpu.utilization").gauge!.dataPoints;
    expect(attrs(gpu[0].attributes)).toEqual({
      "jobsight.job.id": "4242",
      "user.name": "alice",
      "jobsight.gpu.index": 0,
      "jobsight.gpu.uuid": "GPU-5f3c0d1e-aaaa-bbbb-cccc-0123456789ab",
      "jobsight.gpu.pci_bus_id": "00000000:3B:00.0",
    });
    const processes = metric(gpu07, "jobsight.job.process.memory.usage").gauge!.dataPoints;
    expect(attrs(processes[0].attributes)).toMatchObject({ "jobsight.process.state": "R" });
    for (const decoded of [
      decodeExportMetricsRequest(encodeExportMetricsRequest(request)),
      decodeExportMetricsRequestJson(encodeExportMetricsRequestJson(request)),
    ]) {
      const { samples: back, rejected } = decodeObservations(decoded);
      expect(rejected).toEqual({ count: 0, reasons: {} });
      expect(sortSamples(back)).toEqual(sortSamples(samples));
    }
  });

  it("writes only the metrics a sample has", () => {
    const [only] = encodeObservations([usageSamples()[3]]).resourceMetrics;
    expect(only.scopeMetrics[0].metrics.map((m) => m.name)).toEqual([M.processCount, M.pressure]);
  });

  it("round-trips every field through protobuf and OTLP/JSON", () => {
    const samples = usageSamples();
    const request = encodeObservations(samples);
    for (const decoded of [
      decodeExportMetricsRequest(encodeExportMetricsRequest(request)),
      decodeExportMetricsRequestJson(encodeExportMetricsRequestJson(request)),
    ]) {
      const { samples: back, rejected } = decodeObservations(decoded);
      expect(rejected).toEqual({ count: 0, reasons: {} });
      expect(sortSamples(back)).toEqual(sortSamples(samples));
    }
  });

  it("refuses a sample that breaks the schema, naming it", () => {
    const bad = { ...usageSamples()[0], cluster: "Not A Cluster" } as UsageSample;
    expect(() => encodeObservations([usageSamples()[1], bad])).toThrow(ObservationEncodeError);
    expect(() => encodeObservations([usageSamples()[1], bad])).toThrow(
      /samples\[1\] is not a valid UsageSample: \/cluster/,
    );
    const badTime = { ...usageSamples()[0], time: "yesterday" } as UsageSample;
    expect(() => encodeObservations([badTime], { validate: false })).toThrow(/samples\[0\]\.time/);
  });
});
