/** Connection details of the PostgreSQL server shared by one integration run. */
export type PostgresServiceInfo = {
  /** Admin connection URL (database `postgres`); tests create their own databases through it. */
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  /** `true` when the global setup started the server, `false` for `JOBSIGHT_TEST_PG_URL`. */
  embedded: boolean;
};

/** Connection details of the S3-compatible server shared by one integration run. */
export type S3ServiceInfo = {
  /** Base URL, e.g. `http://127.0.0.1:41234`; always used path-style. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `true` when the global setup started s3rver, `false` for `JOBSIGHT_TEST_S3_ENDPOINT`. */
  embedded: boolean;
};

/**
 * The TimescaleDB server (Debian's PostgreSQL 15 with TimescaleDB 2.28.3 preloaded) shared by one
 * integration run, or why the global setup could not start it (the tests that need it then fail
 * with that reason).
 */
export type TimescaleServiceState =
  | ({ available: true } & PostgresServiceInfo)
  | { available: false; reason: string };

/** Everything the global setup hands to the test workers through `project.provide`. */
export type TestServices = {
  postgres: PostgresServiceInfo;
  s3: S3ServiceInfo;
  timescale: TimescaleServiceState;
};

/** The `provide`/`inject` key under which {@link TestServices} travel. */
export const TEST_SERVICES_KEY = "jobsightServices";

declare module "vitest" {
  export interface ProvidedContext {
    jobsightServices: TestServices;
  }
}
