import {
  type ApiError,
  type ApiRoute,
  compileValidator,
  type Validator,
  validateApiError,
} from "@jobsight/schemas";
import { ConnectionError, httpStatusError, ResponseValidationError, TimeoutError } from "../errors.js";
import {
  backoffDelayMs,
  isRetryableStatus,
  parseRetryAfterMs,
  type RetryTiming,
  sleep,
} from "./retry-policy.js";
import { buildPath, buildQuery, type OperationId, routeOf } from "./route-table.js";

/** Per-call options every SDK method accepts as its last argument. */
export type RequestOptions = {
  /** Abort the call (and any pending retry). */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `retries` for this call. */
  retries?: number;
};

/** A token, or a function returning one (e.g. refreshed from the site's OIDC provider). */
export type TokenSource = string | (() => string | Promise<string>);

/** The settings a transport runs with, already defaulted by `createClient`. */
export type TransportSettings = RetryTiming & {
  baseUrl: string;
  token?: TokenSource;
  timeoutMs: number;
  retries: number;
  fetch: typeof fetch;
  validateResponses: boolean;
};

/** One call to one route. */
export type TransportRequest = {
  operationId: OperationId;
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** `markdown` asks for `text/markdown` and returns the text unparsed. */
  accept?: "json" | "markdown";
  /** Makes a POST safe to retry: the server stores a resend with the same key once. */
  idempotencyKey?: string;
  options?: RequestOptions;
};

type Answer = { status: number; headers: Headers; text: string };

type TSchema = NonNullable<ApiRoute["response"]>;

const timeoutMarker = Symbol("jobsight-timeout");
const responseValidators = new Map<OperationId, Validator<TSchema>>();

function responseValidator(operationId: OperationId, schema: TSchema): Validator<TSchema> {
  let validator = responseValidators.get(operationId);
  if (!validator) {
    validator = compileValidator(schema, operationId);
    responseValidators.set(operationId, validator);
  }
  return validator;
}

/** Sends requests to the Jobsight REST API: auth, timeouts, typed errors, validation and safe retries. */
export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  async request<T>(req: TransportRequest): Promise<T> {
    const route = routeOf(req.operationId);
    const path = buildPath(route, req.params) + buildQuery(req.query);
    const label = `${route.method} ${path}`;
    const url = this.settings.baseUrl.replace(/\/+$/, "") + path;
    const signal = req.options?.signal;
    const timeoutMs = req.options?.timeoutMs ?? this.settings.timeoutMs;
    // Only what the server is guaranteed to apply at most once may be sent twice.
    const idempotent = route.method !== "POST" || req.idempotencyKey !== undefined;
    const retries = idempotent ? Math.max(0, req.options?.retries ?? this.settings.retries) : 0;

    const headers: Record<string, string> = {
      accept: req.accept === "markdown" ? "text/markdown" : "application/json",
    };
    const token = await this.token();
    if (token) headers.authorization = `Bearer ${token}`;
    if (req.body !== undefined) headers["content-type"] = "application/json";
    if (req.idempotencyKey !== undefined) headers["idempotency-key"] = req.idempotencyKey;
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);

    for (let attempt = 0; ; attempt++) {
      const answer = await this.attempt(
        url,
        { method: route.method, headers, body },
        label,
        timeoutMs,
        signal,
      );
      let delayMs: number;
      if (answer instanceof ConnectionError) {
        if (attempt >= retries) throw answer;
        delayMs = backoffDelayMs(attempt + 1, this.settings);
      } else if (answer.status >= 200 && answer.status < 300) {
        return this.parse<T>(req, route.response, answer, label);
      } else {
        const error = this.statusError(answer, label);
        if (attempt >= retries || !isRetryableStatus(answer.status)) throw error;
        const retryAfterMs =
          parseRetryAfterMs(answer.headers.get("retry-after")) ??
          (error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000);
        if (retryAfterMs !== undefined && retryAfterMs > this.settings.maxRetryAfterMs) throw error;
        delayMs = retryAfterMs ?? backoffDelayMs(attempt + 1, this.settings);
      }
      await sleep(delayMs, signal);
    }
  }

  private async token(): Promise<string | undefined> {
    const source = this.settings.token;
    return typeof source === "function" ? await source() : source;
  }

  private async attempt(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
    label: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Answer | ConnectionError> {
    if (signal?.aborted) throw signal.reason;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(timeoutMarker), timeoutMs);
    try {
      const res = await this.settings.fetch(url, { ...init, signal: controller.signal });
      // The body is read under the same deadline: a server that stalls mid-body is a timeout too.
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      if (controller.signal.aborted && controller.signal.reason === timeoutMarker) {
        return new TimeoutError(label, timeoutMs);
      }
      return new ConnectionError(label, cause);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  private statusError(answer: Answer, label: string) {
    let body: ApiError | undefined;
    try {
      const parsed = validateApiError(JSON.parse(answer.text));
      if (parsed.ok) body = parsed.value;
    } catch {
      // Not JSON (a proxy's HTML page, an empty body): the raw text is kept on the error.
    }
    const headerMs = parseRetryAfterMs(answer.headers.get("retry-after"));
    return httpStatusError({
      status: answer.status,
      apiCode: body?.code,
      body,
      rawBody: answer.text,
      retryAfterSeconds: headerMs === undefined ? body?.retryAfterSeconds : headerMs / 1000,
      request: label,
    });
  }

  private parse<T>(req: TransportRequest, schema: TSchema | null, answer: Answer, label: string): T {
    if (req.accept === "markdown") return answer.text as T;
    let value: unknown;
    try {
      value = JSON.parse(answer.text);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ResponseValidationError(label, answer.status, answer.text, [], `not JSON: ${why}`);
    }
    if (schema && this.settings.validateResponses) {
      const result = responseValidator(req.operationId, schema).validate(value);
      if (!result.ok) {
        const first = result.errors[0];
        const reason = `${result.errors.length} field(s) invalid, first ${first.path || "/"}: ${first.message}`;
        throw new ResponseValidationError(label, answer.status, answer.text, result.errors, reason);
      }
    }
    return value as T;
  }
}
