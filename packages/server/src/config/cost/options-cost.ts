import type { OptionSpec } from "../option-spec.js";

/** The site's rates, which turn waste and savings into money; none set, amounts only. */
export const costOptions = [
  {
    path: "cost.currency",
    type: "string",
    env: "JOBSIGHT_COST_CURRENCY",
    defaultText: "none (no money shown)",
    description:
      "ISO 4217 code of the rates below, e.g. EUR; required with any rate. Without rates the waste report, digests, SDK and CLI show amounts only.",
  },
  {
    path: "cost.coreHour",
    type: "number",
    env: "JOBSIGHT_COST_CORE_HOUR",
    min: 0,
    defaultText: "none (cores not priced)",
    description: "Price of one reserved CPU core for one hour, in cost.currency.",
  },
  {
    path: "cost.memoryGibHour",
    type: "number",
    env: "JOBSIGHT_COST_MEMORY_GIB_HOUR",
    min: 0,
    defaultText: "none (memory not priced)",
    description: "Price of one GiB of reserved memory for one hour, in cost.currency.",
  },
  {
    path: "cost.gpuHour",
    type: "number",
    env: "JOBSIGHT_COST_GPU_HOUR",
    min: 0,
    defaultText: "none (only the types of cost.gpuHourByType priced)",
    description:
      "Price of one GPU-hour of a type cost.gpuHourByType does not name (or of a job that named no type), in cost.currency.",
  },
  {
    path: "cost.gpuHourByType.<type>",
    type: "number",
    min: 0,
    defaultText: "cost.gpuHour",
    description:
      "Price of one GPU-hour of this GPU type, as jobs request it (e.g. a100; compared without case), in cost.currency.",
  },
] as const satisfies readonly OptionSpec[];
