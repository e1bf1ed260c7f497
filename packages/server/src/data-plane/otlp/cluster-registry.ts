import { ForbiddenError } from "../../errors.js";
import type { ClusterStore } from "../stores/cluster-store.js";

/**
 * 403 (gRPC `FAILED_PRECONDITION`): the caller's cluster is not registered. Final for OTLP
 * clients: resending cannot help until someone registers the cluster.
 */
export class ClusterNotRegisteredError extends ForbiddenError {
  readonly cluster: string;

  constructor(cluster: string) {
    super(
      `Cluster ${cluster} is not registered: register it with POST /v1/clusters (platform role), ` +
        "or set ingest.requireRegisteredCluster to false",
      [{ path: "/cluster", message: `${cluster} is not a registered cluster` }],
    );
    this.cluster = cluster;
  }
}

/** Options of {@link ClusterRegistry}. */
export type ClusterRegistryOptions = {
  /** Where registrations live. */
  clusters: Pick<ClusterStore, "get">;
  /** How long a "registered" answer is reused, in ms (registrations are never withdrawn). @default 60000 */
  registeredTtlMs?: number;
  /** How long a "not registered" answer is reused, in ms: a new registration counts after this. @default 2000 */
  unregisteredTtlMs?: number;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
};

/**
 * Answers "is this cluster registered?" for every ingest request without a database round trip
 * each time: answers are cached, refusals only briefly so a cluster registered a moment ago is
 * let in almost at once.
 *
 * @example
 * ```ts
 * const registry = new ClusterRegistry({ clusters: storage.clusters });
 * await registry.assertRegistered("hpc1"); // throws ClusterNotRegisteredError when it is not
 * ```
 */
export class ClusterRegistry {
  readonly #clusters: Pick<ClusterStore, "get">;
  readonly #registeredTtl: number;
  readonly #unregisteredTtl: number;
  readonly #now: () => number;
  readonly #known = new Map<string, { registered: boolean; at: number }>();

  constructor(options: ClusterRegistryOptions) {
    this.#clusters = options.clusters;
    this.#registeredTtl = options.registeredTtlMs ?? 60_000;
    this.#unregisteredTtl = options.unregisteredTtlMs ?? 2_000;
    this.#now = options.now ?? Date.now;
  }

  /** Whether `cluster` is registered (cached). Storage failures propagate. */
  async isRegistered(cluster: string): Promise<boolean> {
    const now = this.#now();
    const cached = this.#known.get(cluster);
    if (cached) {
      const ttl = cached.registered ? this.#registeredTtl : this.#unregisteredTtl;
      if (now - cached.at < ttl) return cached.registered;
    }
    const registered = (await this.#clusters.get(cluster)) !== undefined;
    // Cluster ids come from verified tokens, so the map stays as small as the set of clusters.
    this.#known.set(cluster, { registered, at: now });
    return registered;
  }

  /** @throws {ClusterNotRegisteredError} when `cluster` is not registered. */
  async assertRegistered(cluster: string): Promise<void> {
    if (!(await this.isRegistered(cluster))) throw new ClusterNotRegisteredError(cluster);
  }
}
