import type { JobsightClient } from "@jobsight/sdk";

/** A prediction as the SDK returns it. */
export type Prediction = Awaited<ReturnType<JobsightClient["predictions"]["create"]>>;
