import { parseArgs } from "node:util";
import { loadConfig } from "../../../packages/collector/src/config/load-config.js";
import { optionSpecs as collectorOptions } from "../../../packages/collector/src/config/options.js";
import {
  configFromEnv,
  ENV_SETTINGS,
  mergeConfigLayers,
} from "../../../packages/server/src/config/config-sources.js";
import { parseServerConfig } from "../../../packages/server/src/config/parse-config.js";
import { configFromFlags, serveFlagOptions } from "../../../packages/server/src/config/serve-flags.js";
import type { ServerConfig } from "../../../packages/server/src/config/server-config.js";
import type { Manifest } from "./kustomize.js";

const SERVER_COMMANDS = ["serve", "import", "train", "backtest", "token"];
// Variables the containers may set besides the programs' own JOBSIGHT_* settings.
const RUNTIME_ENV = new Set(["NODE_EXTRA_CA_CERTS", "NODE_OPTIONS"]);

/** A container's plain `env` values (secret references become a placeholder). */
export function containerEnv(container: Manifest): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) env[e.name] = e.value ?? `<from ${e.valueFrom ? "reference" : "?"}>`;
  return env;
}

/**
 * The server configuration a `jobsight-server` container starts with (its flags and environment,
 * over `file`, the content of its `--config` file), or the problems `jobsight-server` would stop
 * on: an unknown command, flag or variable, or a value the parser refuses.
 */
export function serverContainerConfig(
  container: Manifest,
  file: Record<string, unknown> = {},
): { config?: ServerConfig; problems: string[] } {
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map(String);
  const at = argv.indexOf("jobsight-server");
  if (at < 0) return { problems: [`${container.name}: does not run jobsight-server (${argv.join(" ")})`] };
  const [command, ...rest] = argv.slice(at + 1);
  if (!SERVER_COMMANDS.includes(command))
    return { problems: [`${container.name}: jobsight-server has no command ${command}`] };
  const problems: string[] = [];
  const known = new Set(Object.keys(ENV_SETTINGS));
  const env = containerEnv(container);
  for (const name of Object.keys(env)) {
    if (!known.has(name) && !RUNTIME_ENV.has(name))
      problems.push(`${container.name}: ${name} is not a jobsight-server setting`);
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: rest, options: serveFlagOptions(), strict: true }));
  } catch (error) {
    return { problems: [...problems, `${container.name}: ${(error as Error).message}`] };
  }
  try {
    const raw = mergeConfigLayers(file, configFromEnv(env), configFromFlags(values));
    return { config: parseServerConfig(raw, { cwd: "/" }), problems };
  } catch (error) {
    return { problems: [...problems, `${container.name}: ${(error as Error).message}`] };
  }
}

/** What `jobsight-collector` would stop on in this container: unknown flags, variables or values. */
export function collectorContainerProblems(container: Manifest): string[] {
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map(String);
  const at = argv.indexOf("jobsight-collector");
  if (at < 0) return [`${container.name}: does not run jobsight-collector (${argv.join(" ")})`];
  const problems: string[] = [];
  const known = new Set(collectorOptions.map((s) => s.env));
  const env = containerEnv(container);
  // A variable the others name as $(NAME) (e.g. NODE_IP from status.hostIP) is there for them.
  const referenced = new Set(
    Object.values(env).flatMap((v) => [...v.matchAll(/\$\((\w+)\)/g)].map((m) => m[1])),
  );
  for (const name of Object.keys(env)) {
    if (!known.has(name) && !RUNTIME_ENV.has(name) && !referenced.has(name))
      problems.push(`${container.name}: ${name} is not a jobsight-collector setting`);
  }
  try {
    loadConfig({ argv: argv.slice(at + 1), env, hostname: "node-1", readFile: () => "{}" });
  } catch (error) {
    problems.push(`${container.name}: ${(error as Error).message}`);
  }
  return problems;
}
