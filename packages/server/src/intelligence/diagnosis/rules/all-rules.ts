import { cancelledRule } from "./cancelled.js";
import { cpuLowEfficiencyRule } from "./cpu/cpu-low-efficiency.js";
import { cpuOversubscribedRule } from "./cpu/cpu-oversubscribed.js";
import { cpuThrottledRule } from "./cpu/cpu-throttled.js";
import { gpuFaultRule } from "./gpu/gpu-fault.js";
import { gpuMemoryOverreservedRule } from "./gpu/gpu-memory-overreserved.js";
import { gpuUnderutilisedRule } from "./gpu/gpu-underutilised.js";
import { gpusUnusedRule } from "./gpu/gpus-unused.js";
import { jobErrorRule } from "./job-error.js";
import { memoryOverrequestedRule } from "./memory-overrequested.js";
import { nodeFailureRule } from "./node-failure.js";
import { oomKillRule } from "./oom-kill.js";
import { preemptedRule } from "./preempted.js";
import type { DiagnosisRule } from "./rule.js";
import { stalledDataLoaderRule } from "./stalled-data-loader.js";
import { timeoutRule } from "./timeout.js";
import { walltimeOverrequestedRule } from "./walltime-overrequested.js";

/**
 * Every rule, in the order they run. Rules that explain how a job ended come first; job_error runs
 * last because it speaks only when none of the others explained the failure.
 */
export const ALL_RULES: readonly DiagnosisRule[] = Object.freeze([
  nodeFailureRule,
  preemptedRule,
  cancelledRule,
  timeoutRule,
  oomKillRule,
  gpuFaultRule,
  stalledDataLoaderRule,
  gpusUnusedRule,
  gpuUnderutilisedRule,
  gpuMemoryOverreservedRule,
  cpuThrottledRule,
  cpuOversubscribedRule,
  cpuLowEfficiencyRule,
  memoryOverrequestedRule,
  walltimeOverrequestedRule,
  jobErrorRule,
]);
