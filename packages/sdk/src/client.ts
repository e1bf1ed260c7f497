import { type RequestOptions, type TokenSource, Transport } from "./http/transport.js";
import { AccuracyResource } from "./resources/accuracy.js";
import { AlertsResource } from "./resources/alerts.js";
import { ClustersResource } from "./resources/clusters.js";
import { DiagnosesResource } from "./resources/diagnoses.js";
import { JobsResource } from "./resources/jobs.js";
import { ModelsResource } from "./resources/models.js";
import { PolicyResource } from "./resources/policy.js";
import { PredictionsResource } from "./resources/predictions.js";
import { ReportsResource } from "./resources/reports.js";
import { TokensResource } from "./resources/tokens.js";
import { UsersResource } from "./resources/users.js";

/** Options of {@link createClient}. */
export type ClientOptions = {
  /** Where the Jobsight server listens, e.g. `https://jobsight.example.org`. */
  baseUrl: string;
  /**
   * Bearer token, or a function returning one for each call (to refresh from an OIDC provider).
   * @default undefined (no Authorization header)
   */
  token?: TokenSource;
  /**
   * Deadline of one attempt, from sending the request to the last byte of the answer.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Retries after the first attempt, only for calls that are safe to resend (reads, and writes
   * with an idempotency key) and only after 408, 429, 5xx or a connection failure.
   * @default 2
   */
  retries?: number;
  /**
   * Delay before the first retry; doubled for each further one, with jitter.
   * @default 500
   */
  retryDelayMs?: number;
  /**
   * Largest back-off delay between two attempts.
   * @default 10000
   */
  maxRetryDelayMs?: number;
  /**
   * A `Retry-After` longer than this is not waited for: the error is thrown at once.
   * @default 60000
   */
  maxRetryAfterMs?: number;
  /**
   * The `fetch` to use: a test double such as `@jobsight/sdk/testing`'s fake server, or a
   * proxy-aware one.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Check each JSON answer against its schema; a mismatch throws `ResponseValidationError`.
   * @default true
   */
  validateResponses?: boolean;
};

/** Liveness answer of `GET /healthz`. */
export type Health = {
  status: "ok" | "degraded" | "unavailable";
  version: string;
  checks?: Record<string, string>;
  licence?: string;
};

/** A typed client of the Jobsight REST API. */
export type JobsightClient = {
  readonly predictions: PredictionsResource;
  readonly diagnoses: DiagnosesResource;
  readonly jobs: JobsResource;
  readonly accuracy: AccuracyResource;
  /** Reports over ended jobs: waste by user, account or partition. */
  readonly reports: ReportsResource;
  /** The platform team's policy: read, replace, simulate, and the audit of applied changes. */
  readonly policy: PolicyResource;
  /** Registered clusters: list, register, remove (removal: admin role). */
  readonly clusters: ClustersResource;
  /** Issued API tokens: list, create, revoke (admin role). */
  readonly tokens: TokensResource;
  /** Users seen in recorded jobs and issued tokens (admin role). */
  readonly users: UsersResource;
  /** The model registry: status (platform role), promote and roll back (admin role). */
  readonly models: ModelsResource;
  /** Live alerts over running jobs (a researcher sees their own jobs'). */
  readonly alerts: AlertsResource;
  /** `GET /healthz`: whether the server is up (no token needed). */
  health(options?: RequestOptions): Promise<Health>;
};

/**
 * Create a client of a Jobsight server. Works in Node 20+ and in browsers.
 *
 * @example
 * ```ts
 * import { createClient } from "@jobsight/sdk";
 * const client = createClient({ baseUrl: "https://jobsight.example.org", token: process.env.JOBSIGHT_TOKEN });
 * const prediction = await client.predictions.create({ spec });
 * ```
 */
export function createClient(options: ClientOptions): JobsightClient {
  if (!options || typeof options.baseUrl !== "string" || !/^https?:\/\//.test(options.baseUrl)) {
    throw new TypeError("createClient: baseUrl must be an http(s) URL, e.g. https://jobsight.example.org");
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== "function")
    throw new TypeError("createClient: no fetch available; pass options.fetch");
  const transport = new Transport({
    baseUrl: options.baseUrl,
    token: options.token,
    timeoutMs: options.timeoutMs ?? 30_000,
    retries: options.retries ?? 2,
    baseDelayMs: options.retryDelayMs ?? 500,
    maxDelayMs: options.maxRetryDelayMs ?? 10_000,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
    // Bound to globalThis: browsers throw "Illegal invocation" for an unbound window.fetch.
    fetch: options.fetch ?? fetchImpl.bind(globalThis),
    validateResponses: options.validateResponses ?? true,
  });
  return {
    predictions: new PredictionsResource(transport),
    diagnoses: new DiagnosesResource(transport),
    jobs: new JobsResource(transport),
    accuracy: new AccuracyResource(transport),
    reports: new ReportsResource(transport),
    policy: new PolicyResource(transport),
    clusters: new ClustersResource(transport),
    tokens: new TokensResource(transport),
    users: new UsersResource(transport),
    models: new ModelsResource(transport),
    alerts: new AlertsResource(transport),
    health: (requestOptions) =>
      transport.request<Health>({ operationId: "getHealth", options: requestOptions }),
  };
}
