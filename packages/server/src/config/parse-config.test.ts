import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { parseServerConfig } from "./parse-config.js";

function issuesOf(raw: unknown): string[] {
  try {
    parseServerConfig(raw, { cwd: "/srv" });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path}: ${i.message}`);
    throw error;
  }
  return [];
}

describe("parseServerConfig", () => {
  it("fills every default from an empty configuration", () => {
    const config = parseServerConfig({}, { cwd: "/srv" });
    expect(config.dataDir).toBe("/srv/.jobsight");
    expect(config.http).toMatchObject({ host: "127.0.0.1", port: 8080, bodyLimitBytes: 16 * 1024 * 1024 });
    expect(config.postgres.url).toBeUndefined();
    expect(config.postgres.timescale).toBe("auto");
    expect(config.objectStore).toEqual({ kind: "local", dir: "/srv/.jobsight/objects" });
    expect(config.auth.tokens).toEqual([]);
  });

  it("converts strings from the environment and flags to numbers and booleans", () => {
    const config = parseServerConfig(
      {
        http: { port: "9090" },
        rateLimit: { enabled: "false", burst: "5" },
        objectStore: { bucket: "b", forcePathStyle: "true" },
      },
      { cwd: "/srv" },
    );
    expect(config.http.port).toBe(9090);
    expect(config.rateLimit.enabled).toBe(false);
    expect(config.rateLimit.burst).toBe(5);
    expect(config.objectStore).toMatchObject({ kind: "s3", bucket: "b", forcePathStyle: true, prefix: "" });
  });

  it("reports every problem at once as path: message", () => {
    const issues = issuesOf({
      http: { port: 70000, logLevel: "loud", hots: "x" },
      postgres: { url: "mysql://x" },
      objectStore: { kind: "s3", endpoint: "ftp://x", accessKeyId: "a" },
      auth: {
        tokens: [
          { role: "root", token: "short" },
          { role: "collector", tokenSha256: "ABC", user: "c" },
        ],
      },
      ingest: { retentionDays: 3, compressAfterDays: 7 },
      extra: true,
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        "http.port: must be at most 65535, got 70000",
        'http.logLevel: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
        "http.hots: is not a known setting",
        "postgres.url: must start with postgres:// or postgresql://",
        "objectStore.bucket: is required for kind s3",
        "objectStore.endpoint: must be an http(s) URL",
        "objectStore.secretAccessKey: accessKeyId and secretAccessKey go together",
        'auth.tokens[0].role: must be one of researcher, platform, admin, collector, scheduler, got "root"',
        "auth.tokens[0].token: must be at least 16 characters",
        "auth.tokens[0].user: is required",
        "auth.tokens[1].tokenSha256: must be 64 lower-case hex digits",
        "auth.tokens[1].cluster: is required for role collector",
        "ingest.retentionDays: must be greater than compressAfterDays (7) or 0",
        "extra: is not a known setting",
      ]),
    );
    expect(issues).toHaveLength(14);
  });

  it("stores plaintext tokens only as their sha256", () => {
    const token = "a-long-enough-secret-token";
    const config = parseServerConfig({
      auth: { tokens: [{ token, role: "researcher", user: "alice" }] },
    });
    expect(config.auth.tokens).toEqual([
      {
        id: "config-1",
        tokenSha256: createHash("sha256").update(token).digest("hex"),
        role: "researcher",
        user: "alice",
      },
    ]);
    expect(JSON.stringify(config)).not.toContain(token);
  });

  it("refuses the same token twice", () => {
    const token = "a-long-enough-secret-token";
    const issues = issuesOf({
      auth: {
        tokens: [
          { token, role: "researcher", user: "alice" },
          { token, role: "platform", user: "bob" },
        ],
      },
    });
    expect(issues).toEqual(["auth.tokens[1]: is the same token as auth.tokens[0]"]);
  });

  it("refuses local-only settings on S3 and S3 settings on a local store", () => {
    expect(issuesOf({ objectStore: { kind: "local", endpoint: "http://x" } })).toEqual([
      "objectStore.endpoint: only applies to kind s3",
    ]);
    expect(issuesOf({ objectStore: { kind: "s3", bucket: "b", dir: "/x" } })).toEqual([
      "objectStore.dir: only applies to kind local",
    ]);
  });
});
