import {
  ATTR_HW_GPU_TASK,
  METRIC_CONTAINER_CPU_TIME,
  METRIC_CONTAINER_DISK_IO,
  METRIC_CONTAINER_MEMORY_RSS,
  METRIC_CONTAINER_MEMORY_USAGE,
  METRIC_CONTAINER_MEMORY_WORKING_SET,
  METRIC_HW_GPU_MEMORY_LIMIT,
  METRIC_HW_GPU_MEMORY_USAGE,
  METRIC_HW_GPU_UTILIZATION,
  METRIC_K8S_POD_CPU_TIME,
  METRIC_K8S_POD_MEMORY_RSS,
  METRIC_K8S_POD_MEMORY_USAGE,
  METRIC_K8S_POD_MEMORY_WORKING_SET,
  METRIC_PROCESS_CPU_TIME,
  METRIC_PROCESS_DISK_IO,
  METRIC_PROCESS_MEMORY_USAGE,
  METRIC_PROCESS_THREAD_COUNT,
  METRIC_SYSTEM_CPU_TIME,
  METRIC_SYSTEM_MEMORY_USAGE,
} from "@opentelemetry/semantic-conventions/incubating";
import type { MetricDefinition } from "../../mapping/metric-definitions.js";
import {
  type Apply,
  addField,
  cpuTime,
  diskIo,
  firstText,
  gpuField,
  memoryState,
  NOT_APPLICABLE,
  setField,
} from "./standard-fields.js";

/** What a standard input reads: one process, one container, one pod, or a node a job has alone. */
export type InputScope = "process" | "container" | "pod" | "node";

/** One OpenTelemetry semantic-convention metric Jobsight reads, and where it goes. */
export interface StandardInput {
  /** The convention's name (from `@opentelemetry/semantic-conventions`). */
  name: string;
  /** The convention's UCUM unit; other units of the same dimension are converted. */
  unit: string;
  /** `counter`: a cumulative Sum (a delta one is refused); `gauge`: a Gauge or an UpDownCounter. */
  instrument: "gauge" | "counter";
  scope: InputScope;
  /** The usage-sample field(s) it fills. */
  field: string;
  /** How several points of one sample combine. */
  combine: string;
  /** The predictions and diagnoses the field feeds. */
  feeds: string;
  apply: Apply;
}

const MEMORY = "memory prediction (job peak); out-of-memory and over-requested memory diagnoses";
const CPU = "CPU-cores prediction; low CPU efficiency, stalled data loader, timeout diagnoses";
const GPU = "GPU prediction; unused, under-used GPU and stalled data loader diagnoses";
const GPU_MEMORY = "GPU-memory prediction; GPU memory over-reserved diagnosis";

const input = (
  name: string,
  unit: string,
  instrument: StandardInput["instrument"],
  scope: InputScope,
  field: string,
  combine: string,
  feeds: string,
  apply: Apply,
): StandardInput => ({ name, unit, instrument, scope, field, combine, feeds, apply });

/** A `hw.gpu.utilization` point is a GPU's busy share only without a task or for `general`. */
const gpuUtilization: Apply = (() => {
  const set = gpuField(METRIC_HW_GPU_UTILIZATION, "utilizationPercent", "ratio");
  return (draft, value, attributes) => {
    const task = firstText(attributes, [ATTR_HW_GPU_TASK]);
    return task === undefined || task === "general" ? set(draft, value, attributes) : NOT_APPLICABLE;
  };
})();

/**
 * Every OpenTelemetry semantic-convention metric the receiver maps to usage samples. A metric not
 * listed here (and not Jobsight's own) is counted as skipped, never refused.
 */
export const standardInputs: readonly StandardInput[] = [
  input(
    METRIC_PROCESS_MEMORY_USAGE,
    "By",
    "gauge",
    "process",
    "memory.currentBytes",
    "summed over the job's processes",
    MEMORY,
    addField(METRIC_PROCESS_MEMORY_USAGE, "memory", "currentBytes", "int"),
  ),
  input(
    METRIC_CONTAINER_MEMORY_USAGE,
    "By",
    "gauge",
    "container",
    "memory.currentBytes",
    "wins over working_set",
    MEMORY,
    setField(METRIC_CONTAINER_MEMORY_USAGE, "memory", "currentBytes", "int", 2),
  ),
  input(
    METRIC_CONTAINER_MEMORY_WORKING_SET,
    "By",
    "gauge",
    "container",
    "memory.currentBytes",
    "when usage is not sent",
    MEMORY,
    setField(METRIC_CONTAINER_MEMORY_WORKING_SET, "memory", "currentBytes", "int", 1),
  ),
  input(
    METRIC_CONTAINER_MEMORY_RSS,
    "By",
    "gauge",
    "container",
    "memory.anonBytes",
    "one value",
    "out-of-memory diagnosis (what held the memory)",
    setField(METRIC_CONTAINER_MEMORY_RSS, "memory", "anonBytes", "int"),
  ),
  input(
    METRIC_K8S_POD_MEMORY_USAGE,
    "By",
    "gauge",
    "pod",
    "memory.currentBytes",
    "wins over working_set",
    MEMORY,
    setField(METRIC_K8S_POD_MEMORY_USAGE, "memory", "currentBytes", "int", 2),
  ),
  input(
    METRIC_K8S_POD_MEMORY_WORKING_SET,
    "By",
    "gauge",
    "pod",
    "memory.currentBytes",
    "when usage is not sent",
    MEMORY,
    setField(METRIC_K8S_POD_MEMORY_WORKING_SET, "memory", "currentBytes", "int", 1),
  ),
  input(
    METRIC_K8S_POD_MEMORY_RSS,
    "By",
    "gauge",
    "pod",
    "memory.anonBytes",
    "one value",
    "out-of-memory diagnosis (what held the memory)",
    setField(METRIC_K8S_POD_MEMORY_RSS, "memory", "anonBytes", "int"),
  ),
  input(
    METRIC_SYSTEM_MEMORY_USAGE,
    "By",
    "gauge",
    "node",
    "memory.currentBytes",
    "`system.memory.state` used only",
    MEMORY,
    memoryState(setField(METRIC_SYSTEM_MEMORY_USAGE, "memory", "currentBytes", "int")),
  ),
  input(
    METRIC_PROCESS_CPU_TIME,
    "s",
    "counter",
    "process",
    "cpu.usageSeconds, cpu.userSeconds, cpu.systemSeconds",
    "user and system modes summed over processes",
    CPU,
    cpuTime(METRIC_PROCESS_CPU_TIME),
  ),
  input(
    METRIC_CONTAINER_CPU_TIME,
    "s",
    "counter",
    "container",
    "cpu.usageSeconds",
    "one cumulative value (or user and system modes)",
    CPU,
    cpuTime(METRIC_CONTAINER_CPU_TIME),
  ),
  input(
    METRIC_K8S_POD_CPU_TIME,
    "s",
    "counter",
    "pod",
    "cpu.usageSeconds",
    "one cumulative value (or user and system modes)",
    CPU,
    cpuTime(METRIC_K8S_POD_CPU_TIME),
  ),
  input(
    METRIC_SYSTEM_CPU_TIME,
    "s",
    "counter",
    "node",
    "cpu.usageSeconds, cpu.userSeconds, cpu.systemSeconds",
    "user and system modes summed over CPUs",
    CPU,
    cpuTime(METRIC_SYSTEM_CPU_TIME),
  ),
  input(
    METRIC_PROCESS_THREAD_COUNT,
    "{thread}",
    "gauge",
    "process",
    "cpu.threads",
    "summed over the job's processes",
    "CPU oversubscription diagnosis",
    addField(METRIC_PROCESS_THREAD_COUNT, "cpu", "threads", "int"),
  ),
  input(
    METRIC_PROCESS_DISK_IO,
    "By",
    "counter",
    "process",
    "io.readBytes, io.writeBytes",
    "by `disk.io.direction`, summed over processes",
    "stalled data loader diagnosis (evidence)",
    diskIo(METRIC_PROCESS_DISK_IO),
  ),
  input(
    METRIC_CONTAINER_DISK_IO,
    "By",
    "counter",
    "container",
    "io.readBytes, io.writeBytes",
    "by `disk.io.direction`, summed over devices",
    "stalled data loader diagnosis (evidence)",
    diskIo(METRIC_CONTAINER_DISK_IO),
  ),
  input(
    METRIC_HW_GPU_UTILIZATION,
    "1",
    "gauge",
    "node",
    "gpus[].utilizationPercent",
    "per GPU (`hw.gpu.task` general or absent)",
    GPU,
    gpuUtilization,
  ),
  input(
    METRIC_HW_GPU_MEMORY_USAGE,
    "By",
    "gauge",
    "node",
    "gpus[].memoryUsedBytes",
    "per GPU",
    GPU_MEMORY,
    gpuField(METRIC_HW_GPU_MEMORY_USAGE, "memoryUsedBytes", "int"),
  ),
  input(
    METRIC_HW_GPU_MEMORY_LIMIT,
    "By",
    "gauge",
    "node",
    "gpus[].memoryTotalBytes",
    "per GPU",
    GPU_MEMORY,
    gpuField(METRIC_HW_GPU_MEMORY_LIMIT, "memoryTotalBytes", "int"),
  ),
];

/** The {@link MetricDefinition} of a standard input (its `source` is the field it fills). */
export function standardDefinition(input: StandardInput): MetricDefinition {
  const integer = input.unit === "By" || input.unit === "{thread}";
  return {
    name: input.name,
    unit: input.unit,
    instrument: input.instrument,
    valueType: integer ? "int" : "double",
    source: input.field,
    attributes: [],
    description: `Standard input (${input.scope}): ${input.combine}.`,
  };
}
