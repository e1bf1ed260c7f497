import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.js";
import { configFromEnv, ENV_SETTINGS } from "./config-sources.js";
import type { OptionSpec } from "./option-spec.js";
import { type OptionPath, serverOptions } from "./options.js";
import { parseServerConfig } from "./parse-config.js";

const options: readonly OptionSpec[] = serverOptions;
const isItem = (s: OptionSpec) => /\[\]|</.test(s.path);

// The variables the server read before the option table existed: their names and settings are a
// contract with deployments and must not change.
const PRE_TABLE_ENV: Record<string, string> = {
  JOBSIGHT_DATA_DIR: "dataDir",
  JOBSIGHT_HOST: "http.host",
  JOBSIGHT_PORT: "http.port",
  JOBSIGHT_BODY_LIMIT_BYTES: "http.bodyLimitBytes",
  JOBSIGHT_LOG_LEVEL: "http.logLevel",
  JOBSIGHT_DATABASE_URL: "postgres.url",
  JOBSIGHT_DATABASE_POOL_SIZE: "postgres.poolSize",
  JOBSIGHT_TIMESCALE: "postgres.timescale",
  JOBSIGHT_OBJECT_STORE: "objectStore.kind",
  JOBSIGHT_OBJECT_DIR: "objectStore.dir",
  JOBSIGHT_S3_BUCKET: "objectStore.bucket",
  JOBSIGHT_S3_PREFIX: "objectStore.prefix",
  JOBSIGHT_S3_ENDPOINT: "objectStore.endpoint",
  JOBSIGHT_S3_REGION: "objectStore.region",
  JOBSIGHT_S3_FORCE_PATH_STYLE: "objectStore.forcePathStyle",
  JOBSIGHT_S3_ACCESS_KEY_ID: "objectStore.accessKeyId",
  JOBSIGHT_S3_SECRET_ACCESS_KEY: "objectStore.secretAccessKey",
  JOBSIGHT_RATE_LIMIT_RPS: "rateLimit.requestsPerSecond",
  JOBSIGHT_RATE_LIMIT_BURST: "rateLimit.burst",
  JOBSIGHT_REQUIRE_REGISTERED_CLUSTER: "ingest.requireRegisteredCluster",
  JOBSIGHT_OTLP_ENABLED: "otlp.enabled",
  JOBSIGHT_OTLP_HOST: "otlp.host",
  JOBSIGHT_OTLP_GRPC_PORT: "otlp.grpcPort",
  JOBSIGHT_OTLP_HTTP_PORT: "otlp.httpPort",
  JOBSIGHT_OTLP_DECODE_THREADS: "otlp.decodeThreads",
  JOBSIGHT_MODE: "intelligence.mode",
  JOBSIGHT_SHADOW_DAYS: "intelligence.shadowDays",
  JOBSIGHT_RETRAIN_INTERVAL_HOURS: "intelligence.retrainIntervalHours",
  JOBSIGHT_INTELLIGENCE_ENABLED: "intelligence.enabled",
  JOBSIGHT_OIDC_ISSUER: "oidc.issuer",
  JOBSIGHT_OIDC_AUDIENCE: "oidc.audience",
  JOBSIGHT_LICENCE: "licence.jws",
  JOBSIGHT_LICENCE_FILE: "licence.file",
  JOBSIGHT_CONTROL_PLANE_URL: "controlPlane.url",
  JOBSIGHT_TLS_CERT_FILE: "tls.certFile",
  JOBSIGHT_TLS_KEY_FILE: "tls.keyFile",
};

// Every other variable is JOBSIGHT_ and the setting's path in upper snake case.
const derivedEnv = (path: string) =>
  `JOBSIGHT_${path
    .replace(/\./g, "_")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toUpperCase()}`;

// Valid values where `sample-<key>` or the default ± 1 would not do (URLs, absolute paths, a port
// that would collide with the other OTLP port).
const SAMPLES: Partial<Record<OptionPath, string>> = {
  dataDir: "/var/lib/jobsight",
  "postgres.url": "postgres://jobsight@db.example.org/jobsight",
  "postgres.embeddedBinDir": "/opt/postgres/bin",
  "objectStore.dir": "/var/lib/jobsight/objects",
  "objectStore.prefix": "jobsight/",
  "objectStore.endpoint": "http://127.0.0.1:9000",
  "otlp.grpcPort": "14317",
  "intelligence.llm.baseUrl": "http://10.0.0.5:8000/v1",
  "intelligence.llm.apiKeyEnv": "LLM_KEY",
  "oidc.issuer": "https://idp.example.org",
  "oidc.audience": "api://jobsight",
  "oidc.algorithms": "ES384",
  "oidc.jwksUri": "https://idp.example.org/jwks",
  "oidc.defaultRoles": "platform",
  "licence.file": "/etc/jobsight/licence.jws",
  "controlPlane.url": "https://cp.example.org/heartbeat",
  "tls.certFile": "/etc/jobsight/tls.crt",
  "tls.keyFile": "/etc/jobsight/tls.key",
  "tls.caFile": "/etc/jobsight/ca.crt",
  "admission.cluster": "k8s-prod",
  "admission.clientNames": "kube-apiserver",
  "admission.sources": "10.0.0.0/24",
  "alerts.webhook.urls": "https://chat.example.org/hooks/x1",
  "alerts.publicUrl": "https://jobsight.lab.example.org",
  "alerts.email.domain": "physics.example.org",
  "alerts.email.addresses": "alice=alice@physics.example.org",
  "alerts.alertmanager.urls": "http://alertmanager:9093",
  "alerts.actions.clusters": "hpc1",
  "alerts.actions.users": "alice",
  "alerts.actions.accounts": "physics",
  "alerts.actions.partitions": "gpu",
  "alerts.actions.kubernetes.apiUrl": "https://kubernetes.default.svc",
  "cost.currency": "CHF",
};

/** Variables the rules need beside the one under test (TLS needs both files, S3 a bucket…). */
function companions(path: string): Record<string, string> {
  if (path.startsWith("tls."))
    return {
      JOBSIGHT_TLS_CERT_FILE: "/c.pem",
      JOBSIGHT_TLS_KEY_FILE: "/k.pem",
      JOBSIGHT_TLS_CA_FILE: "/ca.pem",
    };
  // Certificate mode: the webhook's caller known by a client certificate from tls.caFile.
  if (path.startsWith("admission."))
    return {
      JOBSIGHT_TLS_CERT_FILE: "/c.pem",
      JOBSIGHT_TLS_KEY_FILE: "/k.pem",
      JOBSIGHT_TLS_CA_FILE: "/ca.pem",
      JOBSIGHT_ADMISSION_CLUSTER: "k8s1",
      ...(path === "admission.clientAuth" ? {} : { JOBSIGHT_ADMISSION_CLIENT_AUTH: "certificate" }),
    };
  if (path.startsWith("oidc."))
    return { JOBSIGHT_OIDC_ISSUER: "https://idp.example.org", JOBSIGHT_OIDC_AUDIENCE: "jobsight" };
  if (path.startsWith("alerts.email."))
    return {
      JOBSIGHT_ALERTS_EMAIL_SMTP_HOST: "smtp.lab.example.org",
      JOBSIGHT_ALERTS_EMAIL_SMTP_USER: "jobsight",
      JOBSIGHT_ALERTS_EMAIL_FROM: "jobsight@lab.example.org",
      JOBSIGHT_ALERTS_EMAIL_DOMAIN: "lab.example.org",
      // Each option's own variable, set by the test after these, wins.
    };
  // A currency alone prices nothing, and a rate needs a currency.
  if (path.startsWith("cost.")) return { JOBSIGHT_COST_CURRENCY: "EUR", JOBSIGHT_COST_CORE_HOUR: "0.05" };
  if (path.startsWith("intelligence.llm."))
    return { JOBSIGHT_INTELLIGENCE_LLM_BASE_URL: "http://10.0.0.5/v1", JOBSIGHT_INTELLIGENCE_LLM_MODEL: "m" };
  if (path.startsWith("objectStore.") && path !== "objectStore.dir")
    return { JOBSIGHT_S3_BUCKET: "b", JOBSIGHT_S3_ACCESS_KEY_ID: "a", JOBSIGHT_S3_SECRET_ACCESS_KEY: "s" };
  return {};
}

/** A valid value other than the default, as the environment gives it and as the parser returns it. */
function sample(s: OptionSpec): { text: string; parsed: unknown } {
  const text = SAMPLES[s.path as OptionPath];
  switch (s.type) {
    case "boolean":
      return { text: String(!s.default), parsed: !s.default };
    case "enum": {
      const value = s.values!.find((v) => v !== s.default)!;
      return { text: value, parsed: value };
    }
    case "integer": {
      const d = s.default as number;
      const value = text ? Number(text) : d + 1 <= (s.max ?? Number.MAX_SAFE_INTEGER) ? d + 1 : d - 1;
      return { text: String(value), parsed: value };
    }
    case "number": {
      const value = text ? Number(text) : ((s.default as number | undefined) ?? 0) + 1.25;
      return { text: String(value), parsed: value };
    }
    case "list":
      return { text: text!, parsed: [text] };
    case "string": {
      const value = text ?? `sample-${s.path.slice(s.path.lastIndexOf(".") + 1)}`;
      return { text: value, parsed: value };
    }
  }
}

const at = (value: unknown, path: string) =>
  path.split(".").reduce<unknown>((o, key) => (o as Record<string, unknown> | undefined)?.[key], value);

describe("the option table", () => {
  it("keeps every variable the server read before it, for the same setting", () => {
    for (const [name, path] of Object.entries(PRE_TABLE_ENV)) expect(ENV_SETTINGS[name], name).toBe(path);
  });

  it("gives every setting outside lists and maps one variable of its own, derived from its path", () => {
    const names = options.map((s) => s.env).filter((e) => e !== undefined);
    expect(new Set(names).size).toBe(names.length);
    for (const s of options) {
      if (isItem(s)) expect(s.env, s.path).toBeUndefined();
      else if (!(s.env! in PRE_TABLE_ENV)) expect(s.env, s.path).toBe(derivedEnv(s.path));
    }
  });

  it("names each path once and describes it in one line", () => {
    expect(new Set(options.map((s) => s.path)).size).toBe(options.length);
    for (const s of options) expect(s.description, s.path).toMatch(/^[^\n|]+$/);
  });

  it.each(options.filter((s) => !isItem(s)).map((s) => [s.path, s] as const))(
    "%s is read by the parser from its variable",
    (path, spec) => {
      const { text, parsed } = sample(spec);
      expect(parsed).not.toEqual(spec.default);
      const config = parseServerConfig(configFromEnv({ ...companions(path), [spec.env!]: text }), {
        cwd: "/srv",
      });
      expect(at(config, path)).toEqual(parsed);
    },
  );

  it.each(options.filter((s) => s.default !== undefined && !s.defaultText).map((s) => [s.path, s] as const))(
    "%s defaults to the table's value",
    (path, spec) => {
      const config = parseServerConfig(configFromEnv(companions(path)), { cwd: "/srv" });
      const expected = path === "dataDir" ? resolve("/srv", spec.default as string) : spec.default;
      expect(at(config, path)).toEqual(expected);
    },
  );

  it("reads every item setting of tokens, group grants and GPU rates from the file", () => {
    const token = "a-long-enough-secret-token";
    const hash = "ab".repeat(32);
    const tokens = [
      { token, role: "researcher", user: "alice", id: "alice-laptop" },
      { tokenSha256: hash, role: "collector", user: "collector", cluster: "hpc1" },
    ];
    const groupGrants = { admins: { roles: ["platform"], clusters: ["hpc1"] } };
    const gpuHourByType = { a100: 2.5 };
    const config = parseServerConfig({
      auth: { tokens },
      oidc: { issuer: "https://idp.example.org", audience: "jobsight", groupGrants },
      cost: { currency: "EUR", gpuHourByType },
    });
    expect(config.auth.tokens).toEqual([
      {
        id: "alice-laptop",
        tokenSha256: createHash("sha256").update(token).digest("hex"),
        role: "researcher",
        user: "alice",
      },
      { id: "config-2", tokenSha256: hash, role: "collector", user: "collector", cluster: "hpc1" },
    ]);
    expect(config.oidc?.groupGrants).toEqual(groupGrants);
    expect(config.cost?.gpuHourByType).toEqual(gpuHourByType);
    const covered = [
      ...tokens.flatMap((t) => Object.keys(t).map((k) => `auth.tokens[].${k}`)),
      ...Object.keys(groupGrants.admins).map((k) => `oidc.groupGrants.<group>.${k}`),
      "cost.gpuHourByType.<type>",
    ];
    expect(new Set(covered)).toEqual(new Set(options.filter(isItem).map((s) => s.path)));
  });

  it("never echoes a secret in a configuration error", () => {
    const raw = {
      postgres: { url: "mysql://root:SECRET-1@db" },
      objectStore: { secretAccessKey: "SECRET-2" },
      licence: { jws: "SECRET-3", file: "/etc/licence" },
      auth: { tokens: [{ token: "SECRET-4", role: "researcher", user: "a" }] },
    };
    const error = (() => {
      try {
        parseServerConfig(raw);
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        "postgres.url",
        "objectStore.secretAccessKey",
        "licence.jws",
        "auth.tokens[0].token",
      ]),
    );
    expect(error!.message).not.toMatch(/SECRET-/);
    expect(options.filter((s) => s.secret).map((s) => s.path)).toEqual([
      "postgres.url",
      "objectStore.secretAccessKey",
      "auth.tokens[].token",
      "licence.jws",
      "alerts.webhook.urls",
      "alerts.email.smtp.password",
      "alerts.alertmanager.urls",
    ]);
  });
});
