import { type ApiRoute, compileValidator, type JobRecord, type Validator } from "@jobsight/schemas";
import { matchRoute, type OperationId } from "../http/route-table.js";
import { fakePredict } from "./fake-predictor.js";
import { apiError, type FakeAnswer, type FakeRouteContext } from "./fake-route-context.js";
import { fakeRoutes } from "./fake-routes.js";
import type { FakeFailure, FakeServerOptions, RecordedRequest } from "./fake-server-options.js";
import { FakeStore } from "./fake-store.js";

type Validators = { params?: Validator<never>; query?: Validator<never>; body?: Validator<never> };

function coerceQuery(route: ApiRoute, search: URLSearchParams): Record<string, unknown> {
  const properties = (route.query?.properties ?? {}) as Record<string, { type?: string }>;
  const query: Record<string, unknown> = {};
  for (const [key, value] of search) {
    const type = properties[key]?.type;
    query[key] =
      (type === "integer" || type === "number") && value.trim() !== ""
        ? Number(value)
        : type === "boolean" && (value === "true" || value === "false")
          ? value === "true"
          : value;
  }
  return query;
}

function toResponse(answer: FakeAnswer, extraHeaders: Record<string, string> = {}): Response {
  if (answer.bytes) {
    return new Response(answer.bytes, {
      status: answer.status,
      headers: { "content-type": answer.contentType ?? "application/octet-stream", ...extraHeaders },
    });
  }
  if (answer.text !== undefined) {
    return new Response(answer.text, {
      status: answer.status,
      headers: { "content-type": answer.contentType ?? "text/plain", ...extraHeaders },
    });
  }
  return new Response(JSON.stringify(answer.json), {
    status: answer.status,
    headers: { "content-type": "application/json; charset=utf-8", ...extraHeaders },
  });
}

/** An in-memory Jobsight server behind a `fetch` function: give its `fetch` to `createClient`. */
export class FakeJobsightServer {
  readonly baseUrl: string;
  readonly store = new FakeStore();
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[] = [];
  /** A `fetch` that answers the Jobsight routes; pass it to `createClient({ fetch })`. */
  readonly fetch: typeof fetch;
  private readonly failures: FakeFailure[] = [];
  private readonly validators = new Map<string, Validators>();
  private readonly origin: string;
  private readonly basePath: string;

  constructor(private readonly options: FakeServerOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "http://jobsight.test").replace(/\/+$/, "");
    const url = new URL(this.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.seedJobs(options.jobs ?? []);
    this.fetch = (input, init) => this.handle(new Request(input, init));
  }

  /** Store job records as if they had been ingested. */
  seedJobs(records: JobRecord[]): this {
    for (const record of records) this.store.putJob(record);
    return this;
  }

  /** Make the next matching request(s) fail. Failures queue up in the order they were added. */
  failNext(failure: FakeFailure = {}): this {
    this.failures.push({ ...failure, times: failure.times ?? 1 });
    return this;
  }

  /** Forget every stored item, recorded request and pending failure. */
  reset(): void {
    this.store.clear();
    this.requests.length = 0;
    this.failures.length = 0;
  }

  private validatorsFor(route: ApiRoute): Validators {
    let v = this.validators.get(route.operationId);
    if (!v) {
      v = {
        params: route.params && (compileValidator(route.params, "params") as unknown as Validator<never>),
        query: route.query && (compileValidator(route.query, "query") as unknown as Validator<never>),
        body: route.body && (compileValidator(route.body, "body") as unknown as Validator<never>),
      };
      this.validators.set(route.operationId, v);
    }
    return v;
  }

  private async wait(signal: AbortSignal): Promise<void> {
    const ms = this.options.latencyMs ?? 0;
    if (ms <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener("abort", () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
  }

  private takeFailure(operationId: string | undefined): FakeFailure | undefined {
    const index = this.failures.findIndex(
      (f) => f.operationId === undefined || f.operationId === operationId,
    );
    if (index < 0) return undefined;
    const failure = this.failures[index];
    failure.times = (failure.times ?? 1) - 1;
    if (failure.times <= 0) this.failures.splice(index, 1);
    return failure;
  }

  private async handle(request: Request): Promise<Response> {
    if (request.signal.aborted) throw request.signal.reason;
    const url = new URL(request.url);
    if (url.origin !== this.origin || !url.pathname.startsWith(this.basePath)) {
      throw new TypeError("fetch failed", { cause: new Error(`getaddrinfo ENOTFOUND ${url.host}`) });
    }
    await this.wait(request.signal);
    const pathname = url.pathname.slice(this.basePath.length) || "/";
    const rawBody = new Uint8Array(await request.arrayBuffer());
    const text = new TextDecoder().decode(rawBody);
    let body: unknown;
    let bodyIsJson = true;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      bodyIsJson = false;
      body = text;
    }
    const match = matchRoute(request.method, pathname);
    const headers = Object.fromEntries(request.headers);
    this.requests.push({
      method: request.method,
      path: pathname,
      operationId: match.route?.operationId,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
    });

    const failure = this.takeFailure(match.route?.operationId);
    if (failure?.network) throw new TypeError("fetch failed", { cause: new Error("read ECONNRESET") });
    if (failure) {
      const status = failure.status ?? 500;
      const failBody =
        failure.body ?? apiError(status, "INJECTED_FAILURE", `injected failure ${status}`).json;
      const answer: FakeAnswer =
        typeof failBody === "string"
          ? { status, text: failBody, contentType: "text/html" }
          : { status, json: failBody };
      return toResponse(answer, failure.headers);
    }

    if (!match.route) {
      return toResponse(
        match.pathExists
          ? apiError(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed on ${pathname}`)
          : apiError(404, "NOT_FOUND", `no route ${request.method} ${pathname}`),
      );
    }
    const { route, params } = match;
    const denied = this.authorise(route, headers.authorization);
    if (denied) return toResponse(denied);

    const query = coerceQuery(route, url.searchParams);
    const v = this.validatorsFor(route);
    const errors = [
      ...(v.params ? prefixed("/params", v.params.validate(params)) : []),
      ...(v.query ? prefixed("/query", v.query.validate(query)) : []),
    ];
    if (route.body) {
      if (!bodyIsJson || body === undefined) errors.push({ path: "", message: "the body must be JSON" });
      else errors.push(...prefixed("", v.body!.validate(body)));
    }
    if (errors.length > 0) {
      return toResponse(apiError(400, "VALIDATION_FAILED", `${errors.length} field(s) invalid`, { errors }));
    }

    const ctx: FakeRouteContext = {
      store: this.store,
      params,
      query,
      body,
      rawBody,
      accept: headers.accept ?? "application/json",
      idempotencyKey: headers["idempotency-key"],
      now: this.options.now ?? (() => new Date()),
      mode: this.options.mode ?? "live",
      shadowUntil: this.options.shadowUntil,
      version: this.options.version ?? "0.0.0-fake",
      predict: this.options.predict ?? fakePredict,
    };
    const answer = await fakeRoutes[route.operationId as OperationId](ctx);
    return toResponse(answer);
  }

  private authorise(route: ApiRoute, authorization: string | undefined): FakeAnswer | undefined {
    const tokens = this.options.tokens;
    if (!tokens || route.roles.length === 0) return undefined;
    const token = /^Bearer (.+)$/i.exec(authorization ?? "")?.[1];
    const roles = token === undefined ? undefined : tokens[token];
    if (!roles) return apiError(401, "UNAUTHENTICATED", "a valid bearer token is required");
    if (!roles.some((role) => route.roles.includes(role))) {
      return apiError(
        403,
        "FORBIDDEN",
        `${route.operationId} needs one of the roles ${route.roles.join(", ")}`,
      );
    }
    return undefined;
  }
}

function prefixed(
  prefix: string,
  result: { ok: true } | { ok: false; errors: { path: string; message: string }[] },
) {
  return result.ok ? [] : result.errors.map((e) => ({ path: `${prefix}${e.path}`, message: e.message }));
}

/**
 * Start an in-memory Jobsight server for tests: no sockets, schema-valid answers, injectable failures.
 *
 * @example
 * ```ts
 * import { createClient } from "@jobsight/sdk";
 * import { createFakeServer } from "@jobsight/sdk/testing";
 * const fake = createFakeServer({ jobs: pastJobs });
 * const client = createClient({ baseUrl: fake.baseUrl, fetch: fake.fetch });
 * fake.failNext({ status: 503, headers: { "retry-after": "0" } });
 * const prediction = await client.predictions.create({ spec }); // retried once, then answered
 * ```
 */
export function createFakeServer(options: FakeServerOptions = {}): FakeJobsightServer {
  return new FakeJobsightServer(options);
}
