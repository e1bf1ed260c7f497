import type { TSchema } from "@sinclair/typebox";

/**
 * The roles of Jobsight's users and machines. `admin` may do everything `platform` may, and also
 * issue and revoke API tokens, remove clusters, list users and promote or roll back models.
 */
export type Role = "researcher" | "platform" | "admin" | "collector" | "scheduler";

/** Every role, in the order they are listed to people. */
export const ROLES: readonly Role[] = ["researcher", "platform", "admin", "collector", "scheduler"];

/** One route of the REST surface: the single source for the server, the OpenAPI document and the SDK. */
export type ApiRoute = {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** OpenAPI-style path, e.g. `/v1/jobs/{jobId}`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Roles allowed; an empty list means unauthenticated (health only). */
  roles: Role[];
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** A raw (non-JSON) body, e.g. an artifact upload or OTLP protobuf. */
  rawBody?: string;
  response: TSchema | null;
  /** Alternative response media types besides application/json. */
  produces?: string[];
  successStatus?: number;
};
