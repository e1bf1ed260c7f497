import type { JobSpec } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import type { IntelligenceService } from "../../../src/intelligence/service/intelligence-service.js";
import type { IntelligenceFixture } from "../intelligence/intelligence-fixture.js";

// The scheduler routes as the running server serves them (buildApp over an intelligence service),
// shared by the route tests and the real-sbatch test of the SLURM project.

/** Tokens of {@link schedulerApp}: scheduler tokens are bound to a cluster. */
export const SCHEDULER_TOKENS = {
  scheduler: "scheduler-lanl-token-00000001",
  schedulerHpc1: "scheduler-hpc1-token-00000001",
  platform: "platform-site-token-0000000001",
  platformHpc2: "platform-hpc2-token-0000000001",
  researcher: "researcher-alice-token-0000001",
};

/** The app with the scheduler, policy and intelligence routes of `service`, not listening yet. */
export async function schedulerApp(
  f: IntelligenceFixture,
  service: IntelligenceService,
): Promise<FastifyInstance> {
  const T = SCHEDULER_TOKENS;
  const config = parseServerConfig({
    objectStore: { dir: f.objectsDir },
    rateLimit: { enabled: false },
    http: { logLevel: "silent" },
    auth: {
      tokens: [
        { token: T.scheduler, role: "scheduler", user: "slurmctld", cluster: "lanl" },
        { token: T.schedulerHpc1, role: "scheduler", user: "slurmctld", cluster: "hpc1" },
        { token: T.platform, role: "platform", user: "ops" },
        { token: T.platformHpc2, role: "platform", user: "ops2", cluster: "hpc2" },
        { token: T.researcher, role: "researcher", user: "alice" },
      ],
    },
  });
  return buildApp({ config, storage: f.fx.storage, objectStore: f.objects, intelligence: service });
}

/**
 * SLURM options for a stored LANL job, asking for twice its memory and walltime. On LANL-CM5 the
 * walltime of similar jobs varies too much for a safe value (insufficient evidence), so memory is
 * the resource these tests see changed.
 */
export function overAskingOptions(spec: JobSpec): Record<string, string> {
  const options: Record<string, string> = {
    ntasks: String(spec.requested.cores ?? 1),
    mem: String(Math.max(2, Math.ceil((2 * (spec.requested.memoryBytes ?? 2 ** 30)) / 2 ** 20))),
    time: String(Math.max(2, Math.round((2 * (spec.requested.walltimeSeconds ?? 3600)) / 60))),
  };
  if (spec.executable) options.script = spec.executable;
  if (spec.partition) options.partition = spec.partition;
  if (spec.account) options.account = spec.account;
  return options;
}

/** The `key=value` lines of an advice answer (after its header), as an object. */
export function adviceLines(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

/** Calls `read` every 50 ms until `ok` holds (at most ~5 s) and returns the last value read. */
export async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (ok(value) || i >= 100) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}
