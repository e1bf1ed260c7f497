import { Type } from "@sinclair/typebox";
import { ClusterId } from "../../common.js";

/** The `{jobId}` of a job route. */
export const JobIdParams = Type.Object(
  { jobId: Type.String({ minLength: 1, maxLength: 256, description: "The job id (URL-encoded)." }) },
  { additionalProperties: false },
);
/** The optional `cluster` a route may be narrowed to. */
export const ClusterQuery = Type.Object(
  { cluster: Type.Optional(ClusterId) },
  { additionalProperties: false },
);
