import { userInfo } from "node:os";
import { createClient, type JobsightClient } from "../../client.js";
import { UsageError } from "../cli-errors.js";
import type { CliIo } from "../cli-io.js";
import { type CliConfig, loadConfig } from "../config.js";

/** The `node:util` parseArgs options every command that talks to the server accepts. */
export const connectionOptions = {
  url: { type: "string" },
  token: { type: "string" },
  config: { type: "string" },
  timeout: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type ConnectionValues = {
  url?: string;
  token?: string;
  config?: string;
  timeout?: string;
  cluster?: string;
  user?: string;
};

/** Merge flags, environment and config file, and make a client; a missing URL is a usage error. */
export async function connect(
  values: ConnectionValues,
  io: CliIo,
): Promise<{ config: CliConfig; client: JobsightClient }> {
  const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
  const config = await loadConfig(
    { url: values.url, token: values.token, cluster: values.cluster, user: values.user, timeoutMs },
    values.config,
    io,
  );
  if (!config.url) {
    throw new UsageError(
      'no Jobsight server URL: pass --url, set JOBSIGHT_URL, or put "url" in the config file',
    );
  }
  const client = createClient({
    baseUrl: config.url,
    token: config.token,
    timeoutMs: config.timeoutMs,
    retries: config.retries,
    fetch: io.fetch,
  });
  return { config, client };
}

/** Who submits: configured, else the login name. */
export function submittingUser(config: CliConfig, io: CliIo): string {
  if (config.user) return config.user;
  const fromEnv = io.env.USER || io.env.LOGNAME;
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username;
  } catch {
    throw new UsageError("cannot tell who submits: pass --user or set JOBSIGHT_USER");
  }
}
