import type { ConfigProblem } from "../errors.js";

/**
 * The problem with a setting that must be an http or https URL, if any (unset is fine).
 *
 * @example
 * ```ts
 * httpUrlProblem("backend.url", "ftp://x"); // { path: "backend.url", message: "must be an http or https URL" }
 * ```
 */
export function httpUrlProblem(path: string, value: string | undefined): ConfigProblem | undefined {
  if (value === undefined) return undefined;
  try {
    const u = new URL(value);
    if (u.protocol === "http:" || u.protocol === "https:") return undefined;
    return { path, message: "must be an http or https URL" };
  } catch {
    return { path, message: "is not a URL" };
  }
}
