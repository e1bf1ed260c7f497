/** A call of the in-process server's REST API: the parsed answer, or an Error naming the status. */
export type RestCall = <T>(method: "GET" | "POST", path: string, body?: unknown) => Promise<T>;

/**
 * Calls the REST API at `baseUrl()` (read per call: the server starts after the test file loads)
 * with a bearer token; a non-2xx answer throws with its status and the start of its body.
 *
 * @example
 * const api = restApi(() => server.url, PLATFORM);
 * const record = await api<JobRecord>("GET", "/v1/jobs/42?cluster=hpc1");
 */
export function restApi(baseUrl: () => string, token: string): RestCall {
  return async <T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new RestError(method, path, response.status, text);
    return JSON.parse(text) as T;
  };
}

/** A REST call answered with a status other than 2xx. */
export class RestError extends Error {
  constructor(
    method: string,
    path: string,
    readonly status: number,
    body: string,
  ) {
    super(`${method} ${path} answered ${status}: ${body.slice(0, 500)}`);
    this.name = "RestError";
  }
}
