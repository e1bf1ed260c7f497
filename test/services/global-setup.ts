import type { TestProject } from "vitest/node";
import { installDebianServers, TEST_DEBIAN_SERVERS } from "./debian-servers.js";
import { externalPostgres, startEmbeddedPostgres } from "./postgres-server.js";
import type { RunningService } from "./running-service.js";
import { externalS3, startS3rver } from "./s3-server.js";
import { startTimescaleServer } from "./timescale-server.js";
import { TEST_SERVICES_KEY, type TimescaleServiceState } from "./types.js";

/**
 * Vitest global setup of the "integration" project: starts ONE PostgreSQL, ONE s3rver and ONE
 * TimescaleDB server for the whole run (in parallel), hands their addresses to the workers via
 * `project.provide`, and returns the teardown that stops them and deletes their temp folders,
 * whether tests passed or not. A TimescaleDB server that cannot start (not root, no apt-get, no
 * tarball) does not stop the run: its reason is provided instead, and the tests that need it fail
 * with it.
 *
 * `JOBSIGHT_TEST_PG_URL` (admin URL of an existing server) replaces the embedded PostgreSQL;
 * `JOBSIGHT_TEST_S3_ENDPOINT` (+ key variables, see s3-server.ts) replaces s3rver;
 * `JOBSIGHT_TEST_TIMESCALE_URL` (admin URL of a server with timescaledb preloaded) replaces the
 * TimescaleDB server.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const startedAt = performance.now();
  const pgUrl = process.env.JOBSIGHT_TEST_PG_URL;
  // Both branches are async so a bad override cannot throw before the other server is tracked.
  const took = { postgres: 0, s3: 0, timescale: 0 };
  const timescaleUrl = process.env.JOBSIGHT_TEST_TIMESCALE_URL;
  const [postgres, s3, timescale] = await Promise.allSettled([
    timed(
      (ms) => (took.postgres = ms),
      async () => (pgUrl ? externalPostgres(pgUrl) : startEmbeddedPostgres()),
    ),
    timed(
      (ms) => (took.s3 = ms),
      async () => (process.env.JOBSIGHT_TEST_S3_ENDPOINT ? externalS3(process.env) : startS3rver()),
    ),
    timed(
      (ms) => (took.timescale = ms),
      async () => {
        // Installed first and one at a time: apt-get allows one installer at once.
        const problem = await installDebianServers(TEST_DEBIAN_SERVERS);
        if (problem) console.warn(`[test-services] ${problem}`);
        return timescaleUrl
          ? externalPostgres(timescaleUrl, "JOBSIGHT_TEST_TIMESCALE_URL")
          : startTimescaleServer();
      },
    ),
  ]);

  const started: RunningService<unknown>[] = [];
  for (const result of [postgres, s3, timescale])
    if (result.status === "fulfilled") started.push(result.value);
  const teardown = async () => {
    const results = await Promise.allSettled(started.map((service) => service.stop()));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure) throw failure.reason;
  };

  if (postgres.status === "rejected" || s3.status === "rejected") {
    await teardown();
    throw postgres.status === "rejected" ? postgres.reason : (s3 as PromiseRejectedResult).reason;
  }

  const timescaleState: TimescaleServiceState =
    timescale.status === "fulfilled"
      ? { available: true, ...timescale.value.info }
      : { available: false, reason: String((timescale.reason as Error)?.message ?? timescale.reason) };
  if (!timescaleState.available) {
    console.warn(
      `[test-services] TimescaleDB server not started; its tests will fail: ${timescaleState.reason}`,
    );
  }
  project.provide(TEST_SERVICES_KEY, {
    postgres: postgres.value.info,
    s3: s3.value.info,
    timescale: timescaleState,
  });
  if (process.env.JOBSIGHT_TEST_SERVICES_VERBOSE) {
    const ms = Math.round(performance.now() - startedAt);
    const { host, port } = postgres.value.info;
    const ts = timescaleState.available ? `${timescaleState.host}:${timescaleState.port}` : "unavailable";
    console.log(
      `[test-services] ready in ${ms} ms: postgres ${host}:${port} (${took.postgres} ms), ` +
        `s3 ${s3.value.info.endpoint} (${took.s3} ms), timescale ${ts} (${took.timescale} ms)`,
    );
  }
  return teardown;
}

async function timed<T>(report: (ms: number) => void, start: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  try {
    return await start();
  } finally {
    report(Math.round(performance.now() - startedAt));
  }
}
