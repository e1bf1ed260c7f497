import type { Cluster, ClusterRemoval } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Options of {@link ClustersResource.remove}. */
export type RemoveClusterOptions = RequestOptions & {
  /**
   * Remove the registration even though the cluster has recorded jobs (they are kept).
   * @default false
   */
  force?: boolean;
};

/** The clusters registered with the server: collectors of any other cluster are refused. */
export class ClustersResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Every registered cluster (platform and admin roles; a cluster-bound token sees its own).
   *
   * @example
   * ```ts
   * for (const cluster of await client.clusters.list()) console.log(cluster.id, cluster.scheduler);
   * ```
   */
  async list(options?: RequestOptions): Promise<Cluster[]> {
    const answer = await this.transport.request<{ clusters: Cluster[] }>({
      operationId: "listClusters",
      options,
    });
    return answer.clusters;
  }

  /**
   * Register a cluster, or rename it / change its scheduler when the id is registered already.
   *
   * @example
   * ```ts
   * await client.clusters.register({ id: "hpc1", name: "HPC one", scheduler: "slurm" });
   * ```
   */
  register(cluster: Cluster, options?: RequestOptions): Promise<Cluster> {
    return this.transport.request<Cluster>({ operationId: "registerCluster", body: cluster, options });
  }

  /**
   * Remove a cluster's registration (site-wide admin role): its collectors are refused from then
   * on and its issued API tokens revoked; its recorded jobs are kept. A cluster with recorded
   * jobs is refused with `ConflictError` (`apiCode` `CLUSTER_HAS_JOBS`) unless `force` is set;
   * an unknown one throws `NotFoundError` (`apiCode` `UNKNOWN_CLUSTER`).
   *
   * @example
   * ```ts
   * const { jobs, revokedTokens } = await client.clusters.remove("hpc-old", { force: true });
   * ```
   */
  remove(clusterId: string, options: RemoveClusterOptions = {}): Promise<ClusterRemoval> {
    const { force, ...requestOptions } = options;
    return this.transport.request<ClusterRemoval>({
      operationId: "removeCluster",
      params: { clusterId },
      query: { force: force ? true : undefined },
      options: requestOptions,
    });
  }
}
