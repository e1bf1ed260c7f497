import { cpuContentionScenarios } from "./cpu-contention-scenarios.js";
import { cpuMemoryScenarios } from "./cpu-memory-scenarios.js";
import { crashScenarios } from "./crash-scenarios.js";
import { endScenarios } from "./end-scenarios.js";
import { gpuFaultScenarios } from "./gpu-fault-scenarios.js";
import { gpuUsageScenarios } from "./gpu-usage-scenarios.js";
import { healthyAndMissingScenarios } from "./healthy-and-missing-scenarios.js";
import { oomScenarios } from "./oom-scenarios.js";
import type { DiagnosisScenario } from "./scenario.js";
import { timeScenarios } from "./time-scenarios.js";

/** Every scenario: one realistic job per finding, healthy jobs, and jobs with missing data. */
export const diagnosisScenarios: readonly DiagnosisScenario[] = Object.freeze([
  ...oomScenarios,
  ...gpuFaultScenarios,
  ...gpuUsageScenarios,
  ...timeScenarios,
  ...cpuMemoryScenarios,
  ...cpuContentionScenarios,
  ...endScenarios,
  ...crashScenarios,
  ...healthyAndMissingScenarios,
]);
