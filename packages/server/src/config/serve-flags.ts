import { setPath } from "./config-sources.js";
import type { OptionSpec } from "./option-spec.js";
import { serverOptions } from "./options.js";

type Raw = Record<string, unknown>;

const flagged: readonly OptionSpec[] = serverOptions.filter((s: OptionSpec) => s.flag !== undefined);
const name = (spec: OptionSpec) => spec.flag!.slice(2);
// A boolean flag takes no value: `--no-otlp` sets its option to false, any other to true.
const flagValue = (spec: OptionSpec) => !spec.flag!.startsWith("--no-");

/**
 * The `parseArgs` options of `jobsight-server serve`: `--config` and every option with a flag.
 *
 * @example
 * ```ts
 * const { values } = parseArgs({ args, options: serveFlagOptions(), strict: true });
 * ```
 */
export function serveFlagOptions(): Record<string, { type: "string" | "boolean" }> {
  const options: Record<string, { type: "string" | "boolean" }> = { config: { type: "string" } };
  for (const spec of flagged) options[name(spec)] = { type: spec.type === "boolean" ? "boolean" : "string" };
  return options;
}

/**
 * The config layer the flags give (the highest one), strings converted later by the parser.
 *
 * @example
 * ```ts
 * configFromFlags({ port: "9090", "no-otlp": true }); // { http: { port: "9090" }, otlp: { enabled: false } }
 * ```
 */
export function configFromFlags(values: Record<string, string | boolean | undefined>): Raw {
  const layer: Raw = {};
  for (const spec of flagged) {
    const value = values[name(spec)];
    if (value === undefined) continue;
    if (spec.type === "boolean") {
      if (value === true) setPath(layer, spec.path, flagValue(spec));
    } else setPath(layer, spec.path, value);
  }
  return layer;
}

/** The options part of `serve`'s usage text, one line per flag. */
export function serveFlagsUsage(): string {
  const lines = [["--config <file>", "JSON configuration file (keys are the settings' paths, nested)"]];
  for (const spec of flagged) {
    if (spec.type === "boolean") {
      lines.push([spec.flag!, `Sets ${spec.path} to ${flagValue(spec)}.`]);
      continue;
    }
    const arg = spec.type === "integer" || spec.type === "number" ? "<n>" : "<value>";
    const values = spec.values ? `: ${spec.values.join("|")}` : "";
    const def = spec.default === undefined ? "" : `, default ${spec.default}`;
    lines.push([`${spec.flag} ${arg}`, `${spec.description} [${spec.path}${values}${def}]`]);
  }
  return lines.map(([flag, text]) => `  ${flag.padEnd(24)} ${text}`).join("\n");
}
