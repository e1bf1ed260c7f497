import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { configFromEnv } from "./config-sources.js";
import { parseServerConfig } from "./parse-config.js";

describe("OTLP and ingest settings", () => {
  it("defaults to both OTLP receivers on 127.0.0.1:4317/4318, 20 MiB, registered clusters only", () => {
    const config = parseServerConfig({}, { cwd: "/srv" });
    expect(config.otlp).toEqual({
      enabled: true,
      host: "127.0.0.1",
      grpcPort: 4317,
      httpPort: 4318,
      maxMessageBytes: 20 * 1024 * 1024,
      decodeThreads: Math.min(4, availableParallelism() - 1),
    });
    expect(config.ingest.requireRegisteredCluster).toBe(true);
  });

  it("reads them from JOBSIGHT_* variables", () => {
    const config = parseServerConfig(
      configFromEnv({
        JOBSIGHT_OTLP_ENABLED: "false",
        JOBSIGHT_OTLP_HOST: "0.0.0.0",
        JOBSIGHT_OTLP_GRPC_PORT: "0",
        JOBSIGHT_OTLP_HTTP_PORT: "14318",
        JOBSIGHT_OTLP_DECODE_THREADS: "0",
        JOBSIGHT_REQUIRE_REGISTERED_CLUSTER: "no",
      }),
    );
    expect(config.otlp).toMatchObject({
      enabled: false,
      host: "0.0.0.0",
      grpcPort: 0,
      httpPort: 14318,
      decodeThreads: 0,
    });
    expect(config.ingest.requireRegisteredCluster).toBe(false);
  });

  it("reports bad values and a port used twice, all at once", () => {
    let issues: string[] = [];
    try {
      parseServerConfig({ otlp: { grpcPort: 4317, httpPort: 4317, maxMessageBytes: 10, colour: "x" } });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues = error.issues.map((i) => `${i.path}: ${i.message}`);
    }
    expect(issues).toEqual(
      expect.arrayContaining([
        "otlp.httpPort: must differ from grpcPort (4317)",
        "otlp.maxMessageBytes: must be at least 1024, got 10",
        "otlp.colour: is not a known setting",
      ]),
    );
  });
});
