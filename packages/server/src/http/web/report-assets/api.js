// Calls the Jobsight REST API with the bearer token the user gave once. The token lives in this
// tab's sessionStorage only: never in the address bar, a cookie or local storage.
const TOKEN_KEY = "jobsight.token";

/** An API answer other than 2xx, with the server's stable error code. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/**
 * Moves `#token=…` from the address (the demo prints such a link) into sessionStorage, and takes it
 * out of the address bar so it is neither bookmarked, kept in history nor shared by copy and paste.
 */
export function adoptTokenFromFragment() {
  if (!location.hash) return;
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  if (!token) return;
  setToken(token);
  params.delete("token");
  const rest = params.toString();
  history.replaceState(history.state, "", `${location.pathname}${location.search}${rest ? `#${rest}` : ""}`);
}

export function getToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token.trim());
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * GET an API path (relative to the server root, e.g. `v1/accuracy`) with query parameters; empty
 * values are left out. Resolves with the JSON body, rejects with an {@link ApiError}.
 */
export async function apiGet(path, query = {}) {
  const token = getToken();
  if (!token) throw new ApiError(401, "UNAUTHENTICATED", "No API token yet: paste one above.");
  // The report lives at <root>/report/, so the API is one level up, wherever the server is mounted.
  const url = new URL(`../${path}`, location.href);
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, String(value));
  }
  let response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    });
  } catch (error) {
    throw new ApiError(0, "NETWORK", `The server did not answer: ${error.message}`);
  }
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    throw new ApiError(
      response.status,
      body?.code ?? `HTTP_${response.status}`,
      body?.message ?? response.statusText,
    );
  }
  return body;
}
