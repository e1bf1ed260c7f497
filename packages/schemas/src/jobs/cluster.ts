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
