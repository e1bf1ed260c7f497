import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CompactSign, exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecurityConfigError } from "../security-config-error.js";
import { runIssueLicence } from "./issue-licence.js";
import { LICENCE_TYPE, type LicencePayload, licenceStatus, loadLicence, signLicence } from "./licence.js";

const payload: LicencePayload = {
  licenceId: "L-2026-0001",
  site: "Example University HPC",
  maxNodes: 100,
  notBefore: "2026-01-01T00:00:00Z",
  expiresAt: "2027-01-01T00:00:00Z",
};
const at = (iso: string) => new Date(iso);

let privateJwk: JWK;
let publicJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  privateJwk = { ...(await exportJWK(pair.privateKey)), kid: "test-1" };
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "test-1" };
});

async function signRaw(body: unknown, header: Record<string, unknown> = { alg: "EdDSA", typ: LICENCE_TYPE }) {
  const { importJWK } = await import("jose");
  return new CompactSign(new TextEncoder().encode(JSON.stringify(body)))
    .setProtectedHeader(header as { alg: string })
    .sign(await importJWK(privateJwk, "EdDSA"));
}

describe("loadLicence", () => {
  it("verifies a licence signed by the vendor's key", async () => {
    const loaded = await loadLicence(await signLicence(payload, privateJwk), { publicKeys: [publicJwk] });
    expect(loaded).toEqual({ kind: "verified", payload });
  });

  it("reports no licence as missing", async () => {
    expect(await loadLicence(undefined)).toEqual({ kind: "missing" });
    expect(await loadLicence("  \n")).toEqual({ kind: "missing" });
  });

  it("refuses a licence the built-in key did not sign", async () => {
    const loaded = await loadLicence(await signLicence(payload, privateJwk));
    expect(loaded).toMatchObject({ kind: "invalid", reason: expect.stringMatching(/signature/) });
  });

  it("refuses a tampered licence", async () => {
    const [h, , s] = (await signLicence(payload, privateJwk)).split(".");
    const forged = Buffer.from(JSON.stringify({ ...payload, maxNodes: 100_000 })).toString("base64url");
    expect(await loadLicence(`${h}.${forged}.${s}`, { publicKeys: [publicJwk] })).toMatchObject({
      kind: "invalid",
    });
  });

  it("refuses a licence signed by another Ed25519 key", async () => {
    const other = await generateKeyPair("EdDSA", { crv: "Ed25519" });
    const licence = await signLicence(payload, other.privateKey);
    expect(await loadLicence(licence, { publicKeys: [publicJwk] })).toMatchObject({ kind: "invalid" });
  });

  it("refuses other algorithms, unsigned documents and other document types", async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const none = `${b64({ alg: "none", typ: LICENCE_TYPE })}.${b64(payload)}.`;
    expect(await loadLicence(none, { publicKeys: [publicJwk] })).toMatchObject({ kind: "invalid" });
    const jwt = await signRaw(payload, { alg: "EdDSA", typ: "JWT" });
    expect(await loadLicence(jwt, { publicKeys: [publicJwk] })).toMatchObject({
      kind: "invalid",
      reason: /not a licence/,
    });
    expect(await loadLicence("not-a-jws", { publicKeys: [publicJwk] })).toMatchObject({ kind: "invalid" });
  });

  it("refuses a signed payload that is not a licence", async () => {
    for (const body of [
      { ...payload, maxNodes: 0 },
      { ...payload, expiresAt: "soon" },
      { site: "x" },
      [1, 2],
    ]) {
      expect(await loadLicence(await signRaw(body), { publicKeys: [publicJwk] })).toMatchObject({
        kind: "invalid",
      });
    }
    const backwards = { ...payload, notBefore: payload.expiresAt, expiresAt: payload.notBefore };
    expect(await loadLicence(await signRaw(backwards), { publicKeys: [publicJwk] })).toMatchObject({
      kind: "invalid",
    });
  });

  it("accepts any of several vendor keys (key rotation)", async () => {
    const old = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const keys = [{ ...(await exportJWK(old.publicKey)), kid: "old" }, publicJwk];
    const loaded = await loadLicence(await signLicence(payload, privateJwk), { publicKeys: keys });
    expect(loaded.kind).toBe("verified");
  });

  it("will not sign an invalid payload", async () => {
    await expect(signLicence({ ...payload, licenceId: "has spaces" }, privateJwk)).rejects.toThrow(
      SecurityConfigError,
    );
  });
});

describe("licenceStatus", () => {
  const loaded = { kind: "verified" as const, payload };

  it("is valid between notBefore and expiresAt within the node limit", () => {
    expect(licenceStatus(loaded, { now: at("2026-06-01T00:00:00Z"), nodeCount: 100 })).toEqual({
      state: "valid",
      licence: payload,
      overNodeLimit: false,
    });
  });

  it("is invalid before notBefore", () => {
    expect(licenceStatus(loaded, { now: at("2025-12-31T23:59:59Z") }).state).toBe("invalid");
  });

  it("is in grace for graceDays after expiry, then expired", () => {
    const grace = licenceStatus(loaded, { now: at("2027-01-05T00:00:00Z") });
    expect(grace).toMatchObject({ state: "grace", graceEndsAt: "2027-01-15T00:00:00.000Z" });
    expect(licenceStatus(loaded, { now: at("2027-01-14T23:59:59Z") }).state).toBe("grace");
    expect(licenceStatus(loaded, { now: at("2027-01-15T00:00:00Z") }).state).toBe("expired");
    expect(licenceStatus(loaded, { now: at("2027-01-20T00:00:00Z"), graceDays: 30 }).state).toBe("grace");
  });

  it("is in grace, not refused, when more nodes report than licensed", () => {
    const status = licenceStatus(loaded, { now: at("2026-06-01T00:00:00Z"), nodeCount: 101 });
    expect(status).toMatchObject({
      state: "grace",
      overNodeLimit: true,
      reason: expect.stringMatching(/101 nodes/),
    });
    expect(licenceStatus(loaded, { now: at("2027-03-01T00:00:00Z"), nodeCount: 500 })).toMatchObject({
      state: "expired",
      overNodeLimit: true,
    });
  });

  it("passes missing and invalid through", () => {
    expect(licenceStatus({ kind: "missing" }).state).toBe("missing");
    expect(licenceStatus({ kind: "invalid", reason: "bad" })).toMatchObject({
      state: "invalid",
      reason: "bad",
    });
  });
});

describe("issue-licence", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-licence-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("generates a key pair and signs a licence the printed public key verifies", async () => {
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(`ERR ${l}`) };
    const keyFile = join(dir, "vendor.jwk.json");
    expect(await runIssueLicence(["generate-key", "--out", keyFile], io)).toBe(0);
    const publicKey = JSON.parse(out[0]) as JWK;
    expect(publicKey.d).toBeUndefined();
    expect(JSON.parse(await readFile(keyFile, "utf8")).d).toBeDefined();
    expect(await runIssueLicence(["generate-key", "--out", keyFile], io)).toBe(1);

    const args = ["sign", "--key", keyFile, "--licence-id", "L-7", "--site", "Lab", "--max-nodes", "8"];
    expect(await runIssueLicence([...args, "--expires-at", "2030-01-01T00:00:00Z"], io)).toBe(0);
    const loaded = await loadLicence(out[out.length - 1], { publicKeys: [publicKey] });
    expect(loaded).toMatchObject({
      kind: "verified",
      payload: { licenceId: "L-7", site: "Lab", maxNodes: 8 },
    });
    expect(await runIssueLicence(args, io)).toBe(1);
    expect(await runIssueLicence(["frobnicate"], io)).toBe(2);
  });

  it("runs as a script under tsx", async () => {
    const keyFile = join(dir, "script.jwk.json");
    await runIssueLicence(["generate-key", "--out", keyFile], { out: () => {}, err: () => {} });
    const script = fileURLToPath(new URL("./issue-licence.ts", import.meta.url));
    const tsx = fileURLToPath(new URL("../../../../../node_modules/.bin/tsx", import.meta.url));
    const { stdout } = await promisify(execFile)(tsx, [
      script,
      "sign",
      "--key",
      keyFile,
      "--licence-id",
      "L-8",
      "--site",
      "Lab",
      "--max-nodes",
      "4",
      "--expires-at",
      "2030-01-01T00:00:00Z",
    ]);
    expect(stdout.trim().split(".")).toHaveLength(3);
  });
});
