/**
 * A security setting that cannot work (e.g. an algorithm allow-list naming `none` or HS256, a
 * malformed licence key). Thrown at start-up, never while serving a request.
 *
 * @example
 * ```ts
 * throw new SecurityConfigError("oidc.algorithms", "HS256 is never accepted");
 * ```
 */
export class SecurityConfigError extends Error {
  readonly code = "SECURITY_CONFIG_INVALID";
  /** The setting at fault, e.g. `oidc.algorithms`. */
  readonly path: string;

  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "SecurityConfigError";
    this.path = path;
  }
}
