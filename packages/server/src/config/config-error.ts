/** One problem of a configuration: where (`server.port`) and what. */
export type ConfigIssue = { path: string; message: string };

/**
 * Thrown when a configuration is invalid; lists every problem at once as `path: message`.
 *
 * @example
 * ```ts
 * try { parseServerConfig(raw); } catch (e) { if (e instanceof ConfigError) console.error(e.message); }
 * ```
 */
export class ConfigError extends Error {
  readonly code = "CONFIG_INVALID";

  constructor(readonly issues: ConfigIssue[]) {
    const noun = issues.length === 1 ? "problem" : "problems";
    super(
      `Invalid configuration (${issues.length} ${noun}):\n${issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")}`,
    );
    this.name = "ConfigError";
  }
}
