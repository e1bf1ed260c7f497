import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { configFromEnv, loadServerConfig, mergeConfigLayers } from "./config-sources.js";

describe("config sources", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-config-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lets flags win over the environment, and the environment over the file", async () => {
    const file = join(dir, "jobsight.json");
    await writeFile(
      file,
      JSON.stringify({ http: { port: 1000, host: "0.0.0.0" }, postgres: { poolSize: 3 } }),
    );
    const config = await loadServerConfig({
      file,
      cwd: dir,
      env: { JOBSIGHT_PORT: "2000", JOBSIGHT_DATABASE_URL: "postgres://u@h/db", UNRELATED: "x" },
      overrides: { http: { port: 3000 } },
    });
    expect(config.http.port).toBe(3000);
    expect(config.http.host).toBe("0.0.0.0");
    expect(config.postgres.url).toBe("postgres://u@h/db");
    expect(config.postgres.poolSize).toBe(3);
  });

  it("maps S3 variables into an S3 object store", () => {
    expect(configFromEnv({ JOBSIGHT_S3_BUCKET: "b", JOBSIGHT_S3_ENDPOINT: "http://127.0.0.1:9000" })).toEqual(
      {
        objectStore: { bucket: "b", endpoint: "http://127.0.0.1:9000" },
      },
    );
  });

  it("merges nested objects and replaces arrays", () => {
    expect(mergeConfigLayers({ a: { b: 1, c: [1, 2] } }, { a: { c: [3] } })).toEqual({ a: { b: 1, c: [3] } });
  });

  it("names the file when it is not JSON", async () => {
    const file = join(dir, "broken.json");
    await writeFile(file, "{ port: 1 ");
    const error = await loadServerConfig({ file }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0].path).toBe(file);
    expect((error as ConfigError).issues[0].message).toMatch(/^is not valid JSON/);
  });

  it("reports every problem of a file at once, unknown keys by their path", async () => {
    const file = join(dir, "server.json");
    await writeFile(
      file,
      JSON.stringify({
        http: { port: "eighty", hots: "0.0.0.0" },
        tls: { certFile: "cert.pem" },
        objectStore: { kind: "s3" },
        intelligence: { llm: { modle: "m" } },
        colour: "blue",
      }),
    );
    const error = await loadServerConfig({ file, cwd: dir }).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`).sort()).toEqual([
      "colour: is not a known setting",
      "http.hots: is not a known setting",
      'http.port: must be an integer, got "eighty"',
      "intelligence.llm.modle: is not a known setting",
      "objectStore.bucket: is required for kind s3",
      "tls.keyFile: is required with certFile",
    ]);
    expect((error as ConfigError).message).toMatch(
      /^Invalid configuration \(6 problems\):\n {2}http\.port: /,
    );
  });

  it("reports problems from the environment with their setting path", async () => {
    const error = await loadServerConfig({
      env: { JOBSIGHT_PORT: "eighty", JOBSIGHT_TIMESCALE: "maybe" },
    }).catch((e) => e);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(["http.port", "postgres.timescale"]);
  });

  describe("a file holding secrets", () => {
    const TOKEN = "collector-token-never-printed-01";
    const withSecrets = {
      postgres: { url: "postgres://jobsight:pw@db/jobsight" },
      auth: {
        tokens: [
          { tokenSha256: "a".repeat(64), role: "platform", user: "ops" },
          { token: TOKEN, role: "collector", user: "svc", cluster: "c1" },
        ],
      },
    };
    const writeConfig = async (content: unknown, mode: number) => {
      const file = join(dir, "server.json");
      await writeFile(file, JSON.stringify(content));
      await chmod(file, mode);
      return file;
    };

    it("is refused when every user can read it, naming the file, its mode, its secrets and the fix", async () => {
      const file = await writeConfig(withSecrets, 0o644);
      const error = await loadServerConfig({ file, cwd: dir }).catch((e) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([
        {
          path: file,
          message: `is readable by every user (mode 0644) and holds secrets (postgres.url, auth.tokens[1].token); run chmod 600 ${file}`,
        },
      ]);
      expect((error as ConfigError).message).not.toContain(TOKEN);
    });

    it("is refused with the file's other problems, all at once", async () => {
      const file = await writeConfig({ ...withSecrets, http: { port: 70000 } }, 0o604);
      const error = await loadServerConfig({ file, cwd: dir }).catch((e) => e);
      expect((error as ConfigError).issues.map((i) => i.path)).toEqual([file, "http.port"]);
      expect((error as ConfigError).issues[0].message).toMatch(/\(mode 0604\).*run chmod 600 /);
    });

    it("is accepted when only its owner, or its owner and group, can read it", async () => {
      for (const mode of [0o600, 0o640, 0o400]) {
        const file = await writeConfig(withSecrets, mode);
        const config = await loadServerConfig({ file, cwd: dir });
        expect(config.postgres.url).toBe(withSecrets.postgres.url);
      }
    });

    it("may be world-readable when it holds no secret (a token's hash is not one)", async () => {
      const file = await writeConfig(
        { http: { port: 9000 }, auth: { tokens: [withSecrets.auth.tokens[0]] } },
        0o644,
      );
      expect((await loadServerConfig({ file, cwd: dir })).http.port).toBe(9000);
    });

    it("is judged by the file alone: secrets from the environment do not count", async () => {
      const file = await writeConfig({ http: { port: 9000 } }, 0o644);
      const config = await loadServerConfig({
        file,
        cwd: dir,
        env: { JOBSIGHT_DATABASE_URL: "postgres://u:p@h/db" },
      });
      expect(config.postgres.url).toBe("postgres://u:p@h/db");
    });
  });

  describe("the TLS private key and the licence file", () => {
    const secretFile = async (name: string, mode: number) => {
      const file = join(dir, name);
      await writeFile(file, "-----BEGIN PRIVATE KEY-----\n");
      await chmod(file, mode);
      return file;
    };
    const load = (files: { key: string; licence: string }) =>
      loadServerConfig({
        cwd: dir,
        overrides: {
          tls: { certFile: join(dir, "tls.crt"), keyFile: files.key },
          licence: { file: files.licence },
        },
      });

    it("are refused when others can read them, each named by its option with its mode and the fix", async () => {
      const key = await secretFile("tls.key", 0o644);
      const licence = await secretFile("licence.jws", 0o604);
      const error = await load({ key, licence }).catch((e) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([
        {
          path: "tls.keyFile",
          message: `${key} is readable by every user (mode 0644); run chmod 600 ${key}`,
        },
        {
          path: "licence.file",
          message: `${licence} is readable by every user (mode 0604); run chmod 600 ${licence}`,
        },
      ]);
      expect((error as ConfigError).message).toContain(`tls.keyFile: ${key} is readable by every user`);
    });

    it("are accepted when only their owner can read them, and left to their readers when missing", async () => {
      const key = await secretFile("tls.key", 0o600);
      const licence = await secretFile("licence.jws", 0o400);
      expect((await load({ key, licence })).tls?.keyFile).toBe(key);
      expect((await load({ key: join(dir, "none.key"), licence })).licence.file).toBe(licence);
    });
  });
});
