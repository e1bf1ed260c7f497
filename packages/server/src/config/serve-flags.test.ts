import { parseArgs } from "node:util";
import { describe, expect, it } from "vitest";
import type { OptionSpec } from "./option-spec.js";
import { serverOptions } from "./options.js";
import { parseServerConfig } from "./parse-config.js";
import { configFromFlags, serveFlagOptions, serveFlagsUsage } from "./serve-flags.js";

const flagsOf = (args: string[]) =>
  configFromFlags(parseArgs({ args, options: serveFlagOptions(), strict: true }).values);

describe("serve flags", () => {
  it("are the flags serve has always had, each filling its setting", () => {
    const flags = Object.fromEntries(
      (serverOptions as readonly OptionSpec[]).filter((s) => s.flag).map((s) => [s.flag, s.path]),
    );
    expect(flags).toEqual({
      "--data-dir": "dataDir",
      "--host": "http.host",
      "--port": "http.port",
      "--log-level": "http.logLevel",
      "--database-url": "postgres.url",
      "--no-otlp": "otlp.enabled",
      "--otlp-host": "otlp.host",
      "--otlp-grpc-port": "otlp.grpcPort",
      "--otlp-http-port": "otlp.httpPort",
    });
  });

  it("become the highest config layer, --no-otlp turning the receivers off", () => {
    const layer = flagsOf(["--config", "server.json", "--port", "9090", "--no-otlp", "--data-dir", "/data"]);
    expect(layer).toEqual({ http: { port: "9090" }, otlp: { enabled: false }, dataDir: "/data" });
    const config = parseServerConfig(layer);
    expect(config.http.port).toBe(9090);
    expect(config.otlp.enabled).toBe(false);
    expect(flagsOf([])).toEqual({});
  });

  it("refuse flags serve does not have", () => {
    expect(() => flagsOf(["--bind", "0.0.0.0"])).toThrow(/Unknown option '--bind'/);
  });

  it("are listed in the usage text with their settings", () => {
    const usage = serveFlagsUsage();
    expect(usage).toContain("--config <file>");
    expect(usage).toMatch(/--port <n> +.*\[http\.port, default 8080\]/);
    expect(usage).toMatch(/--no-otlp +Sets otlp\.enabled to false\./);
  });
});
