import type { JobSpec } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../src/app.js";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import type { IntelligenceFixture } from "../intelligence/intelligence-fixture.js";
import { PRINCIPALS, testServerConfig } from "../test-server-config.js";

// The scheduler routes as the running server serves them (buildApp over an intelligence service),
// shared by the route tests and the real-sbatch test of the SLURM project.

const P = PRINCIPALS;

/** Tokens of {@link schedulerApp}: scheduler tokens are bound to a cluster. */
export const SCHEDULER_TOKENS = {
  scheduler: P.scheduler.token,
  schedulerHpc1: P.schedulerHpc1.token,
  platform: P.platform.token,
  platformHpc2: P.platformHpc2.token,
  researcher: P.alice.token,
};

/** The app with the scheduler, policy and intelligence routes of `service`, not listening yet. */
export async function schedulerApp(
  f: IntelligenceFixture,
  service: IntelligenceService,
): Promise<FastifyInstance> {
  const config = testServerConfig(f.objectsDir, [
    P.scheduler,
    P.schedulerHpc1,
    P.platform,
    P.platformHpc2,
    P.alice,
  ]);
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
