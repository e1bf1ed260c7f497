import type { ScalarAttribute as AttrValue } from "./attribute-values.js";
import { applyGpuIdentity, gpuKeyOf, gpuSeriesAttributes } from "./gpu-identity.js";
import type { ApplyOutcome, ExtractedPoint, ObservationMapping, Section } from "./mapping-contract.js";
import { jobMetricDefinitions, type MetricDefinition } from "./metric-definitions.js";
import { LegacySeriesAttributes as L, JobMetricNames as M, SeriesAttributes as S } from "./metric-names.js";
import { integerAttribute, stringAttribute } from "./point-attributes.js";
import { accept, type Kind, toRatio } from "./point-values.js";
import { progressDone, progressLimit } from "./progress-mapping.js";

export type { ApplyOutcome, ExtractedPoint, ObservationMapping, SampleDraft } from "./mapping-contract.js";

/**
 * The one mapping between UsageSample fields and OTLP points, both ways: for every per-job
 * metric, how to read its points out of a sample and how to write a received point back into
 * a sample under construction.
 */

function definitionOf(name: string): MetricDefinition {
  const found = jobMetricDefinitions.find((d) => d.name === name);
  if (!found) throw new Error(`no definition for ${name}`);
  return found;
}

type Group = "memory" | "cpu" | "io" | "pressure";

// Outcomes are shared, not made per point: a body holds tens of thousands of points.
const filled = {
  memory: { section: "memory" },
  cpu: { section: "cpu" },
  io: { section: "io" },
  pressure: { section: "pressure" },
  pids: { section: "pids" },
} as const satisfies Record<string, ApplyOutcome>;

function scalar(name: string, group: Group, field: string, kind: Kind): ObservationMapping {
  return {
    definition: definitionOf(name),
    extract: (sample) => {
      const value = (sample[group] as Section | undefined)?.[field];
      return typeof value === "number"
        ? [{ value: kind === "ratio" ? toRatio(value) : value, attributes: [] }]
        : [];
    },
    apply: (draft, value) => {
      const accepted = accept(value, kind);
      if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
      draft[group] ??= {};
      draft[group][field] = accepted;
      return filled[group];
    },
  };
}

function byDirection(name: string, fields: { read: string; write: string }): ObservationMapping {
  return {
    definition: definitionOf(name),
    extract: (sample) => {
      const io = sample.io as Section | undefined;
      const out: ExtractedPoint[] = [];
      for (const direction of ["read", "write"] as const) {
        const value = io?.[fields[direction]];
        if (typeof value === "number") out.push({ value, attributes: [[S.ioDirection, direction]] });
      }
      return out;
    },
    apply: (draft, value, attributes) => {
      const direction = attributes.get(S.ioDirection);
      if (direction !== "read" && direction !== "write")
        return { reject: `${name}: ${S.ioDirection} must be read or write` };
      const accepted = accept(value, "int");
      if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
      draft.io ??= {};
      draft.io[fields[direction]] = accepted;
      return filled.io;
    },
  };
}

const pressureFields: Record<string, string> = {
  "cpu/some": "cpuSome",
  "memory/some": "memorySome",
  "memory/full": "memoryFull",
  "io/some": "ioSome",
  "io/full": "ioFull",
};

const pressure: ObservationMapping = {
  definition: definitionOf(M.pressure),
  extract: (sample) =>
    Object.entries(pressureFields).flatMap(([key, field]) => {
      const value = (sample.pressure as Section | undefined)?.[field];
      const [resource, stall] = key.split("/");
      return typeof value === "number"
        ? [
            {
              value: toRatio(value),
              attributes: [
                [S.pressureResource, resource],
                [S.pressureStall, stall],
              ] as Array<[string, AttrValue]>,
            },
          ]
        : [];
    }),
  apply: (draft, value, attributes) => {
    const field = pressureFields[`${attributes.get(S.pressureResource)}/${attributes.get(S.pressureStall)}`];
    if (!field) return { reject: `${M.pressure}: unknown ${S.pressureResource}/${S.pressureStall} pair` };
    const accepted = accept(value, "ratio");
    if (typeof accepted === "string") return { reject: `${M.pressure}: ${accepted}` };
    draft.pressure ??= {};
    draft.pressure[field] = accepted;
    return filled.pressure;
  },
};

const pids: ObservationMapping = {
  definition: definitionOf(M.processCount),
  extract: (sample) => (sample.pids === undefined ? [] : [{ value: sample.pids, attributes: [] }]),
  apply: (draft, value) => {
    const accepted = accept(value, "int");
    if (typeof accepted === "string") return { reject: `${M.processCount}: ${accepted}` };
    draft.pids = accepted;
    return filled.pids;
  },
};

function gpuField(name: string, field: string, kind: Kind): ObservationMapping {
  return {
    definition: definitionOf(name),
    extract: (sample, names) =>
      (sample.gpus ?? []).flatMap((g) => {
        const value = (g as Section)[field];
        if (typeof value !== "number") return [];
        const attributes = gpuSeriesAttributes(g, names);
        return [{ value: kind === "ratio" ? toRatio(value) : value, attributes }];
      }),
    apply: (draft, value, attributes) => {
      const index = integerAttribute(attributes, S.gpuIndex);
      if (index === undefined) return { reject: `${name}: missing or invalid ${S.gpuIndex}` };
      const accepted = accept(value, kind);
      if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
      draft.gpus ??= new Map();
      // Two MIG instances of one GPU share its index: each is a device of its own.
      const key = gpuKeyOf(attributes, index);
      let gpu = draft.gpus.get(key);
      if (!gpu) {
        gpu = { index };
        draft.gpus.set(key, gpu);
      }
      gpu[field] = accepted;
      applyGpuIdentity(gpu, attributes, index);
      return { section: `gpu:${key}` };
    },
  };
}

const processMemory: ObservationMapping = {
  definition: definitionOf(M.processMemory),
  extract: (sample, names) =>
    (sample.processes ?? []).map((p) => ({
      value: p.rssBytes,
      attributes: [
        [S.processPid, p.pid],
        [S.processCommand, p.command],
        [names === "legacy" ? L.processState : S.processState, p.state],
      ],
    })),
  apply: (draft, value, attributes) => {
    const pid = integerAttribute(attributes, S.processPid);
    const command = stringAttribute(attributes, S.processCommand);
    const state = stringAttribute(attributes, S.processState) ?? stringAttribute(attributes, L.processState);
    if (pid === undefined || !command || !state) {
      return {
        reject: `${M.processMemory}: needs ${S.processPid}, ${S.processCommand} and ${S.processState}`,
      };
    }
    const accepted = accept(value, "int");
    if (typeof accepted === "string") return { reject: `${M.processMemory}: ${accepted}` };
    draft.processes ??= new Map();
    draft.processes.set(pid, { pid, command, rssBytes: accepted, state });
    return { section: `process:${pid}` };
  },
};

/** Every per-job metric's mapping, in `jobMetricDefinitions` order. */
export const observationMappings: readonly ObservationMapping[] = [
  scalar(M.memoryUsage, "memory", "currentBytes", "int"),
  scalar(M.memoryPeak, "memory", "peakBytes", "int"),
  scalar(M.memoryLimit, "memory", "limitBytes", "int"),
  scalar(M.memoryAnon, "memory", "anonBytes", "int"),
  scalar(M.memoryFile, "memory", "fileBytes", "int"),
  scalar(M.memoryShmem, "memory", "shmemBytes", "int"),
  scalar(M.memorySwap, "memory", "swapBytes", "int"),
  scalar(M.memoryOom, "memory", "oomEvents", "int"),
  scalar(M.memoryOomKill, "memory", "oomKillEvents", "int"),
  scalar(M.cpuTime, "cpu", "usageSeconds", "double"),
  scalar(M.cpuUserTime, "cpu", "userSeconds", "double"),
  scalar(M.cpuSystemTime, "cpu", "systemSeconds", "double"),
  scalar(M.cpuPeriods, "cpu", "periods", "int"),
  scalar(M.cpuThrottledPeriods, "cpu", "throttledPeriods", "int"),
  scalar(M.cpuThrottledTime, "cpu", "throttledSeconds", "double"),
  scalar(M.cpuLimit, "cpu", "limitCores", "double"),
  scalar(M.threadCount, "cpu", "threads", "int"),
  scalar(M.threadRunnable, "cpu", "runnableThreads", "int"),
  scalar(M.nodeLoad1m, "cpu", "nodeLoad1", "double"),
  scalar(M.nodeThreadRunnable, "cpu", "nodeRunnable", "int"),
  byDirection(M.diskIo, { read: "readBytes", write: "writeBytes" }),
  byDirection(M.diskOperations, { read: "readOps", write: "writeOps" }),
  pids,
  pressure,
  gpuField(M.gpuUtilization, "utilizationPercent", "ratio"),
  gpuField(M.gpuMemoryUsage, "memoryUsedBytes", "int"),
  gpuField(M.gpuMemoryLimit, "memoryTotalBytes", "int"),
  gpuField(M.gpuPower, "powerWatts", "double"),
  gpuField(M.gpuTemperature, "temperatureCelsius", "signed"),
  processMemory,
  progressDone,
  progressLimit,
];

/** Fields without which a section cannot stand (required by the UsageSample schema). */
export const requiredFields: Readonly<Record<string, { fields: readonly string[]; because: string }>> = {
  memory: { fields: ["currentBytes"], because: `memory metrics need ${M.memoryUsage}` },
  cpu: { fields: ["usageSeconds"], because: `cpu metrics need ${M.cpuTime}` },
  io: { fields: ["readBytes", "writeBytes"], because: `${M.diskIo} needs both directions` },
  gpu: {
    fields: ["utilizationPercent", "memoryUsedBytes"],
    because: `gpu metrics need ${M.gpuUtilization} and ${M.gpuMemoryUsage}`,
  },
  progress: {
    fields: ["done", "total"],
    because: `progress needs both ${M.progressDone} and ${M.progressLimit}`,
  },
};
