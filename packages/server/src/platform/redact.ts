import type { FastifyRequest } from "fastify";

// Field names that hold credentials wherever they appear in a logged object.
const SECRET_KEYS = [
  "authorization",
  "cookie",
  "password",
  "passphrase",
  "secret",
  "token",
  "accessToken",
  "access_token",
  "refreshToken",
  "refresh_token",
  "idToken",
  "id_token",
  "apiToken",
  "clientSecret",
  "client_secret",
  "secretAccessKey",
  "privateKey",
];

const SECRET_HEADERS = [
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-jobsight-token",
];

/**
 * Log paths pino censors: credential headers of requests and replies (as fastify and our own
 * serializer log them, or as a handler logs `request.headers`), and credential-named fields at the
 * top level and two levels down (bodies, configs, errors).
 */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_HEADERS.flatMap((h) => [
    `req.headers["${h}"]`,
    `res.headers["${h}"]`,
    `headers["${h}"]`,
    `*.headers["${h}"]`,
  ]),
  ...SECRET_KEYS.flatMap((k) => [`["${k}"]`, `*["${k}"]`, `*.*["${k}"]`]),
];

/** The censor written in place of a redacted value. */
export const REDACTED = "[redacted]";

/** pino's `redact` option for Jobsight's logger. */
export const logRedaction = { paths: [...REDACT_PATHS], censor: REDACTED };

// Query parameters that carry credentials when a client puts them in the URL.
const SECRET_QUERY = /^(access_token|id_token|token|api_key|apikey|key|password|secret|client_secret|code)$/i;
const LOGGED_HEADERS = ["user-agent", "content-type", "content-length", "x-request-id", "x-forwarded-for"];

/**
 * The request serializer: fastify's fields, the URL with credential query parameters censored,
 * and a short allow-list of headers (never credentials).
 *
 * @example
 * ```ts
 * serializeRequest(request); // { method: "GET", url: "/v1/jobs?access_token=[redacted]", headers: { "user-agent": … } }
 * ```
 */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const name of LOGGED_HEADERS)
    if (request.headers?.[name] !== undefined) headers[name] = request.headers[name];
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
    headers,
  };
}

/**
 * A URL with the values of credential-named query parameters replaced.
 *
 * @example
 * ```ts
 * redactUrl("/v1/jobs?user=a&access_token=eyJ…"); // "/v1/jobs?user=a&access_token=[redacted]"
 * ```
 */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed name is logged as sent.
      }
      return eq >= 0 && SECRET_QUERY.test(decoded) ? `${name}=${REDACTED}` : pair;
    });
  return `${url.slice(0, q)}?${query.join("&")}`;
}

/** Options of {@link jobsightLoggerOptions}. */
export type JobsightLoggerOptions = {
  /**
   * pino level.
   * @default "info"
   */
  level?: string;
  /**
   * Where lines go (tests capture them).
   * @default stdout
   */
  stream?: { write(line: string): void };
};

/**
 * The `logger` option for `fastify()`: level, redaction and the request serializer together.
 *
 * @example
 * ```ts
 * const app = fastify({ logger: jobsightLoggerOptions({ level: config.http.logLevel }) });
 * ```
 */
export function jobsightLoggerOptions(options: JobsightLoggerOptions = {}) {
  return {
    level: options.level ?? "info",
    redact: logRedaction,
    serializers: { req: serializeRequest },
    ...(options.stream ? { stream: options.stream } : {}),
  };
}
