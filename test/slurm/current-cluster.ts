import { inject } from "vitest";
import { SlurmClient } from "./slurm-client.js";
import { SlurmTestError } from "./slurm-test-error.js";
import { SLURM_CLUSTER_KEY, type SlurmAvailability, type SlurmClusterInfo } from "./types.js";

let client: SlurmClient | undefined;

/**
 * What the `slurm` project's global setup provided: the cluster, or why there is none. Outside
 * that project (no provided value) the cluster is unavailable with a reason saying so.
 */
export function slurmAvailability(): SlurmAvailability {
  return (
    inject(SLURM_CLUSTER_KEY) ?? {
      available: false,
      reason: "no SLURM cluster was provided: run this file in the vitest 'slurm' project",
    }
  );
}

/** The running cluster; throws `SLURM_UNAVAILABLE` with the reason when there is none. */
export function slurmCluster(): SlurmClusterInfo {
  const availability = slurmAvailability();
  if (!availability.available) throw new SlurmTestError("SLURM_UNAVAILABLE", availability.reason);
  return availability;
}

/** A {@link SlurmClient} for the running cluster (one per test file). */
export function slurmClient(): SlurmClient {
  client ??= new SlurmClient(slurmCluster());
  return client;
}
