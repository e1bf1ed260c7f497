import type { JobRecord, PredictionRequest, ResourcePrediction } from "@jobsight/schemas";
import type { FakeStore } from "./fake-store.js";

/** What a fake route answers. */
export type FakeAnswer = {
  status: number;
  json?: unknown;
  text?: string;
  bytes?: Uint8Array;
  contentType?: string;
};

/** What a fake route handler gets. */
export type FakeRouteContext = {
  store: FakeStore;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  rawBody: Uint8Array;
  accept: string;
  idempotencyKey?: string;
  now: () => Date;
  mode: "live" | "shadow";
  shadowUntil?: string;
  version: string;
  predict: (request: PredictionRequest, history: JobRecord[]) => ResourcePrediction[];
};

/** An `ApiError` answer, shaped like the real server's. */
export function apiError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): FakeAnswer {
  return { status, json: { code, message, statusCode: status, ...extra } };
}
