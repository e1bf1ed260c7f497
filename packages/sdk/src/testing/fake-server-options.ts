import type { JobRecord, PredictionRequest, ResourcePrediction, Role } from "@jobsight/schemas";
import type { OperationId } from "../http/route-table.js";

/** Options of {@link createFakeServer}. */
export type FakeServerOptions = {
  /**
   * The origin the fake answers; requests to any other origin fail like an unreachable host.
   * @default "http://jobsight.test"
   */
  baseUrl?: string;
  /**
   * Accepted bearer tokens and their roles. When omitted, no token is needed and every role is allowed.
   * @default undefined
   */
  tokens?: Record<string, Role[]>;
  /**
   * `shadow` records predictions and returns no recommendation, like a new deployment.
   * @default "live"
   */
  mode?: "live" | "shadow";
  /**
   * End of shadow mode, reported in shadow-mode answers.
   * @default undefined
   */
  shadowUntil?: string;
  /**
   * The clock used for timestamps.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Delay before each answer, to exercise timeouts and spinners.
   * @default 0
   */
  latencyMs?: number;
  /**
   * Replace the predictor. The default recommends 1.2 × the largest value seen in the user's
   * ended jobs once there are 3 of them, and answers insufficient_evidence before.
   * @default fakePredict
   */
  predict?: (request: PredictionRequest, history: JobRecord[]) => ResourcePrediction[];
  /**
   * Job records stored before the first request.
   * @default []
   */
  jobs?: JobRecord[];
  /**
   * The version reported by `/healthz` and in `modelVersion`.
   * @default "0.0.0-fake"
   */
  version?: string;
};

/** A failure to inject into the next matching request. */
export type FakeFailure = {
  /** Only requests of this operation fail; any request when omitted. */
  operationId?: OperationId;
  /** HTTP status to answer with (ignored with `network`). @default 500 */
  status?: number;
  /** Extra response headers, e.g. `{ "retry-after": "1" }`. */
  headers?: Record<string, string>;
  /** The body: a string is sent as is (malformed JSON, HTML), an object as JSON. Defaults to an `ApiError`. */
  body?: string | Record<string, unknown>;
  /** Fail like a dropped connection instead of answering. */
  network?: boolean;
  /** How many consecutive matching requests fail. @default 1 */
  times?: number;
};

/** A request the fake received, for assertions. */
export type RecordedRequest = {
  method: string;
  path: string;
  operationId?: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
};
