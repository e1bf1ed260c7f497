import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { expect } from "vitest";
import type { Policy } from "../../../packages/schemas/src/index.js";
import { buildApp } from "../../../packages/server/src/app.js";
import { parseServerConfig } from "../../../packages/server/src/config/parse-config.js";
import type { ServerConfig } from "../../../packages/server/src/config/server-config.js";
import { schedulerHandlers } from "../../../packages/server/src/http/routes/scheduler-handlers.js";
import type { IntelligenceService } from "../../../packages/server/src/intelligence/intelligence-service.js";
import type { StorageFixture } from "../../../packages/server/test/integration/storage-fixture.js";
import { serverContainerConfig } from "./cli-references.js";
import type { Manifest } from "./kustomize.js";

export const GiB = 2 ** 30;
export const ADMIN_TOKEN = "guide-admin-token-0123456789abcdef";
export const POLICY: Policy = { name: "site", caps: { memory: 12 * GiB } };

/** The server.json of the guide's step 2, made by running its own command in `dir`. */
export function guideServerJson(dir: string): Record<string, unknown> {
  const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
  const command = /^\s*(printf '\{"auth".*> server\.json)$/m.exec(readme)?.[1];
  expect(command, "README step 2 makes server.json").toBeDefined();
  execFileSync("bash", ["-c", command!], { cwd: dir, env: { ...process.env, ADMIN_TOKEN } });
  return JSON.parse(readFileSync(join(dir, "server.json"), "utf8"));
}

/** The configuration the `server` container of `objects` starts with, over the guide's server.json. */
export function deployedServerConfig(objects: Manifest[], dir: string): ServerConfig {
  const server = objects
    .find((o) => o.kind === "Deployment" && o.metadata.name === "jobsight-server")!
    .spec.template.spec.containers.find((c: Manifest) => c.name === "server");
  const { config, problems } = serverContainerConfig(server, guideServerJson(dir));
  expect(problems).toEqual([]);
  return config!;
}

/**
 * The server with `config` (the deployed one, its files moved by `tls`) listening with TLS on a
 * port of 127.0.0.1, predictions fixed (6 GiB of memory) so that patches can be checked to the byte.
 */
export async function startWebhookServer(
  config: ServerConfig,
  tls: NonNullable<ServerConfig["tls"]>,
  fx: StorageFixture,
  objectsDir: string,
): Promise<{ app: Awaited<ReturnType<typeof buildApp>>; port: number }> {
  const local = parseServerConfig({ objectStore: { dir: objectsDir }, http: { logLevel: "silent" } });
  const service = {
    policy: () => POLICY,
    mode: () => ({ mode: "live" }),
    predictRecorded: async () => ({
      answer: { id: "p-1", modelVersion: "m-7", mode: "live" },
      resources: [
        {
          resource: "memory",
          status: "ok",
          unit: "bytes",
          value: 6 * GiB,
          confidence: 0.97,
          evidence: { group: "g", jobs: 40 },
        },
      ],
      recommendations: [{ resource: "memory", value: 6 * GiB }],
    }),
  } as unknown as IntelligenceService;
  const app = await buildApp({
    config: {
      ...config,
      http: { ...config.http, host: "127.0.0.1", port: 0, logLevel: "silent" },
      tls,
      rateLimit: { ...config.rateLimit, enabled: false },
      objectStore: local.objectStore,
    },
    storage: fx.storage,
    intelligence: false,
    handlers: () => schedulerHandlers(service, { audit: { record: async () => {} } }),
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
}
