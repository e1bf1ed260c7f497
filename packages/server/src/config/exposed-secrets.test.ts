import { describe, expect, it } from "vitest";
import { exposedFileIssue, exposedSecretsIssue, secretPathsIn } from "./exposed-secrets.js";

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

describe("a file that is a secret by itself (TLS key, licence)", () => {
  const issue = (mode: number, uid: number) =>
    exposedFileIssue("tls.keyFile", "/etc/j/tls.key", { mode, uid });

  it("is refused when every user can read it, whoever owns it", () => {
    for (const uid of [0, 1000]) {
      expect(issue(0o100644, uid)).toEqual({
        path: "tls.keyFile",
        message: "/etc/j/tls.key is readable by every user (mode 0644); run chmod 600 /etc/j/tls.key",
      });
      expect(issue(0o100604, uid)?.message).toMatch(/every user \(mode 0604\)/);
    }
  });

  it("is refused when its group can read it, unless root owns it (shared with the server's group)", () => {
    expect(issue(0o100640, 1000)).toEqual({
      path: "tls.keyFile",
      message:
        "/etc/j/tls.key is readable by its group (mode 0640) and not owned by root; run chmod 600 /etc/j/tls.key",
    });
    expect(issue(0o100640, 0)).toBeUndefined();
  });

  it("is accepted when only its owner can read it", () => {
    for (const mode of [0o100600, 0o100400, 0o100620, 0o100602]) expect(issue(mode, 1000)).toBeUndefined();
  });
});
