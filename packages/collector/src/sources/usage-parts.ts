import type { UsageSample } from "@jobsight/schemas/light";

// @jobsight/schemas exports UsageSample but not the types of its parts; derive them from it.

/** One GPU reading inside a {@link UsageSample}. */
export type GpuUsage = NonNullable<UsageSample["gpus"]>[number];

/** One notable process inside a {@link UsageSample}. */
export type ProcessSnapshot = NonNullable<UsageSample["processes"]>[number];
