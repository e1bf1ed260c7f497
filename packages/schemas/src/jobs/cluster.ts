import { type Static, Type } from "@sinclair/typebox";
import { ClusterId, Name, Scheduler, Timestamp } from "../common.js";

/** A cluster registered with Jobsight; collectors of unknown clusters are refused. */
export const Cluster = Type.Object(
  {
    id: ClusterId,
    name: Name("Display name.", 256),
    scheduler: Scheduler,
    createdAt: Type.Optional(Timestamp),
  },
  { $id: "Cluster", additionalProperties: false, description: "A registered cluster." },
);
export type Cluster = Static<typeof Cluster>;

/**
 * Answer of `DELETE /v1/clusters/{clusterId}`: the registration removed. The cluster's recorded
 * jobs, usage and predictions are kept; its issued API tokens are revoked.
 */
export const ClusterRemoval = Type.Object(
  {
    cluster: Cluster,
    jobs: Type.Integer({ minimum: 0, description: "Recorded jobs of the cluster, kept." }),
    revokedTokens: Type.Integer({ minimum: 0, description: "Issued API tokens of the cluster now revoked." }),
  },
  { $id: "ClusterRemoval", additionalProperties: false, description: "A removed cluster registration." },
);
export type ClusterRemoval = Static<typeof ClusterRemoval>;
