import type { Cluster } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { ClusterNotRegisteredError, ClusterRegistry } from "./cluster-registry.js";

function registryOver(registered: Set<string>, now: { t: number }) {
  const lookups: string[] = [];
  const clusters = {
    get: async (id: string): Promise<Cluster | undefined> => {
      lookups.push(id);
      return registered.has(id) ? { id, name: id, scheduler: "slurm" } : undefined;
    },
  };
  const registry = new ClusterRegistry({
    clusters,
    registeredTtlMs: 60_000,
    unregisteredTtlMs: 2_000,
    now: () => now.t,
  });
  return { registry, lookups };
}

describe("ClusterRegistry", () => {
  it("caches registrations and lets a new registration in once the short refusal cache expires", async () => {
    const registered = new Set(["hpc1"]);
    const now = { t: 0 };
    const { registry, lookups } = registryOver(registered, now);
    expect(await registry.isRegistered("hpc1")).toBe(true);
    expect(await registry.isRegistered("hpc1")).toBe(true);
    await expect(registry.assertRegistered("hpc9")).rejects.toBeInstanceOf(ClusterNotRegisteredError);
    registered.add("hpc9");
    now.t = 1_000;
    expect(await registry.isRegistered("hpc9")).toBe(false);
    now.t = 2_500;
    await expect(registry.assertRegistered("hpc9")).resolves.toBeUndefined();
    expect(lookups).toEqual(["hpc1", "hpc9", "hpc9"]);
    now.t = 61_000;
    await registry.isRegistered("hpc1");
    expect(lookups).toEqual(["hpc1", "hpc9", "hpc9", "hpc1"]);
  });

  it("names the cluster and how to register it, as a 403", () => {
    const error = new ClusterNotRegisteredError("hpc9");
    expect(error.statusCode).toBe(403);
    expect(error.message).toContain("hpc9");
    expect(error.message).toContain("POST /v1/clusters");
  });
});
