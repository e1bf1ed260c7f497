import type { Role } from "@jobsight/schemas";
import { parseServerConfig } from "../../src/config/parse-config.js";
import type { ServerConfig } from "../../src/config/server-config.js";

// The principals and server configuration the intelligence and scheduler integration tests share,
// so an app built by one helper accepts the same tokens for the same people as another.

/** A configured API token: who holds it, with which role, bound to which cluster. */
export type TestPrincipal = { token: string; role: Role; user: string; cluster?: string };

/** Token of the collector of `cluster` (user `svc-collector`). */
export const collectorToken = (cluster: string) => `collector-${cluster}-token-0000001`;

/** The collector of `cluster`, as a configured token. */
export const collectorPrincipal = (cluster: string): TestPrincipal => ({
  token: collectorToken(cluster),
  role: "collector",
  user: "svc-collector",
  cluster,
});

/** Every principal of the tests, by name; an app configures the ones it needs. */
export const PRINCIPALS = {
  alice: { token: "researcher-alice-token-000001", role: "researcher", user: "alice" },
  bob: { token: "researcher-bob-token-00000001", role: "researcher", user: "bob" },
  collector: collectorPrincipal("hpc1"),
  collectorLanl: collectorPrincipal("lanl"),
  platform: { token: "platform-site-token-000000001", role: "platform", user: "ops" },
  platformHpc2: { token: "platform-hpc2-token-00000001", role: "platform", user: "ops2", cluster: "hpc2" },
  scheduler: { token: "scheduler-lanl-token-0000001", role: "scheduler", user: "slurmctld", cluster: "lanl" },
  schedulerHpc1: {
    token: "scheduler-hpc1-token-0000001",
    role: "scheduler",
    user: "slurmctld",
    cluster: "hpc1",
  },
} as const satisfies Record<string, TestPrincipal>;

/** The token of each principal of {@link PRINCIPALS}. */
export const TOKENS = Object.fromEntries(Object.entries(PRINCIPALS).map(([name, p]) => [name, p.token])) as {
  readonly [K in keyof typeof PRINCIPALS]: string;
};

/** The `authorization` header of a request made with `token`. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A server configuration for tests: objects in `objectsDir`, no rate limit, no log, these tokens only. */
export function testServerConfig(objectsDir: string, principals: readonly TestPrincipal[]): ServerConfig {
  return parseServerConfig({
    objectStore: { dir: objectsDir },
    rateLimit: { enabled: false },
    http: { logLevel: "silent" },
    auth: { tokens: [...principals] },
  });
}
