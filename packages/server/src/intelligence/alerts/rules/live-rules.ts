import { coresIdle } from "./cores-idle.js";
import { gpusIdle } from "./gpus-idle.js";
import type { LiveRule } from "./live-rule.js";
import { memoryNearLimit } from "./memory-near-limit.js";
import { repeatedOom } from "./repeated-oom.js";
import { walltimeOverrun } from "./walltime-overrun.js";

/** Every live rule, in the order their alerts are evaluated. */
export const LIVE_RULES: readonly LiveRule[] = [
  memoryNearLimit,
  repeatedOom,
  walltimeOverrun,
  gpusIdle,
  coresIdle,
];
