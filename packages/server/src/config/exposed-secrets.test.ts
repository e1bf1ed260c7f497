import { describe, expect, it } from "vitest";
import { exposedSecretsIssue, secretPathsIn } from "./exposed-secrets.js";

describe("secrets in a configuration file", () => {
  it("finds every secret option the option table marks, items and all", () => {
    expect(
      secretPathsIn({
        postgres: { url: "postgres://u:p@h/db", poolSize: 4 },
        objectStore: { kind: "s3", accessKeyId: "AKIA", secretAccessKey: "s" },
        licence: { jws: "eyJ…" },
        auth: { tokens: [{ token: "t0" }, { tokenSha256: "a".repeat(64) }, { token: "t2" }] },
        oidc: { groupGrants: { hpc: { roles: ["researcher"] } } },
      }),
    ).toEqual([
      "postgres.url",
      "objectStore.secretAccessKey",
      "auth.tokens[0].token",
      "auth.tokens[2].token",
      "licence.jws",
    ]);
  });

  it("ignores empty and misshapen values: they are reported by the parser, not as secrets", () => {
    expect(
      secretPathsIn({ postgres: { url: "" }, auth: { tokens: { token: "t" } }, licence: "jws" }),
    ).toEqual([]);
  });

  it("refuses others' read access only: group read and other bits without read pass", () => {
    const raw = { licence: { jws: "x" } };
    expect(exposedSecretsIssue("/etc/j.json", 0o100644, raw)?.message).toBe(
      "is readable by every user (mode 0644) and holds secrets (licence.jws); run chmod 600 /etc/j.json",
    );
    for (const mode of [0o100600, 0o100640, 0o100660, 0o100602]) {
      expect(exposedSecretsIssue("/etc/j.json", mode, raw)).toBeUndefined();
    }
  });
});
