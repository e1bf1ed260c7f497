import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { type LicencePayload, signLicence } from "../../../src/platform/licence/licence.js";
import { jobRecord, openTestStorage, type StorageFixture } from "../storage-fixture.js";

// The licence seen through the running server: whatever its state (missing, valid, in grace,
// expired, over the node limit, invalid), /healthz and the Jobsight-Licence header say so, and
// ingest keeps storing. Licences are signed with a key pair made here; the clock is fixed.

const TOKEN = "licence-platform-token-0001";
const KID = "licence-test-1";
const GRACE_DAYS = 10;
const LICENCE: LicencePayload = {
  licenceId: "L-TEST-0042",
  site: "Test University HPC",
  maxNodes: 3,
  notBefore: "2026-01-01T00:00:00Z",
  expiresAt: "2027-01-01T00:00:00Z",
};
const BEFORE_EXPIRY = new Date("2026-06-01T00:00:00Z");
const IN_GRACE = new Date("2027-01-05T00:00:00Z");
const GRACE_ENDS_AT = "2027-01-11T00:00:00.000Z";
const AFTER_GRACE = new Date("2027-01-11T00:00:00.001Z");

type LicenceSetup = {
  licence?: { file?: string; jws?: string };
  now?: () => Date;
  nodeCount?: () => Promise<number>;
};

describe("the licence through the server", () => {
  let fx: StorageFixture;
  let dir: string;
  let publicJwk: JWK;
  let licenceJws: string;
  let foreignJws: string;
  let clusterSeq = 0;
  const apps: FastifyInstance[] = [];

  const bearer = { authorization: `Bearer ${TOKEN}` };

  async function appWith(setup: LicenceSetup): Promise<FastifyInstance> {
    const config = parseServerConfig({
      objectStore: { dir: join(dir, "objects") },
      http: { logLevel: "silent" },
      auth: { tokens: [{ token: TOKEN, role: "platform", user: "ops" }] },
      licence: { ...setup.licence, graceDays: GRACE_DAYS },
    });
    const licence = {
      publicKeys: [publicJwk],
      ...(setup.now ? { now: setup.now } : {}),
      nodeCount: setup.nodeCount ?? (async () => 1),
    };
    const app = await buildApp({ config, storage: fx.storage, licence });
    apps.push(app);
    return app;
  }

  async function health(app: FastifyInstance) {
    const res = await app.inject({ method: "GET", url: "/healthz" });
    expect(res.statusCode).toBe(200);
    return { header: res.headers["jobsight-licence"], body: res.json() };
  }

  // Ingests two job records on a cluster of their own and reads them back through the API.
  async function expectIngestStored(app: FastifyInstance, expectedHeader: string): Promise<void> {
    clusterSeq += 1;
    const cluster = `lic${clusterSeq}`;
    const ingest = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer,
      payload: { records: [jobRecord(cluster, "1", "alice", 1), jobRecord(cluster, "2", "bob", 2)] },
    });
    expect(ingest.statusCode).toBe(200);
    expect(ingest.json()).toEqual({ accepted: 2, duplicates: 0 });
    expect(ingest.headers["jobsight-licence"]).toBe(expectedHeader);

    const list = await app.inject({ url: `/v1/jobs?cluster=${cluster}`, headers: bearer });
    expect(list.statusCode).toBe(200);
    expect(list.headers["jobsight-licence"]).toBe(expectedHeader);
    const items = list.json().items as { jobId: string; cluster: string }[];
    expect(items.map((j) => j.jobId).sort()).toEqual(["1", "2"]);
    expect(items.every((j) => j.cluster === cluster)).toBe(true);
    // Straight from PostgreSQL as well, so nothing depends on the API's own view.
    const stored = await fx.storage.pool.query("SELECT count(*)::int AS n FROM jobs WHERE cluster = $1", [
      cluster,
    ]);
    expect(stored.rows[0].n).toBe(2);
  }

  beforeAll(async () => {
    fx = await openTestStorage("licence_app");
    dir = await mkdtemp(join(tmpdir(), "jobsight-licence-"));
    const trusted = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    publicJwk = { ...(await exportJWK(trusted.publicKey)), kid: KID, alg: "EdDSA" };
    licenceJws = await signLicence(LICENCE, { ...(await exportJWK(trusted.privateKey)), kid: KID });
    // Same kid as the trusted key, so only the signature itself can tell them apart.
    const foreign = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    foreignJws = await signLicence(LICENCE, { ...(await exportJWK(foreign.privateKey)), kid: KID });
  });

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  afterAll(async () => {
    await fx?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("reports no licence as missing and keeps ingesting", async () => {
    const app = await appWith({});
    const { header, body } = await health(app);
    expect(header).toBe("missing");
    expect(body).toMatchObject({
      status: "ok",
      licence: "missing",
      checks: { licence: "No licence is installed" },
    });
    expect(body.checks.licenceId).toBeUndefined();
    await expectIngestStored(app, "missing");
  });

  it("reports a valid licence from a file with its id, expiry and node limit", async () => {
    const file = join(dir, "licence.jws");
    await writeFile(file, `${licenceJws}\n`);
    const app = await appWith({ licence: { file }, now: () => BEFORE_EXPIRY });
    const { header, body } = await health(app);
    expect(header).toBe("valid");
    expect(body.licence).toBe("valid");
    expect(body.checks).toEqual({
      licence: "valid",
      licenceId: LICENCE.licenceId,
      licenceExpiresAt: LICENCE.expiresAt,
      licenceMaxNodes: String(LICENCE.maxNodes),
    });
    await expectIngestStored(app, "valid");
  });

  it("puts an expired licence in grace with the grace end, and still stores", async () => {
    const app = await appWith({ licence: { jws: licenceJws }, now: () => IN_GRACE });
    const { header, body } = await health(app);
    expect(header).toBe("grace");
    expect(body.licence).toBe("grace");
    expect(body.checks).toMatchObject({
      licence: `The licence expired on ${LICENCE.expiresAt}`,
      licenceId: LICENCE.licenceId,
      licenceGraceEndsAt: GRACE_ENDS_AT,
    });
    expect(body.checks.licenceOverNodeLimit).toBeUndefined();
    await expectIngestStored(app, "grace");
  });

  it("reports the licence expired after the grace period, and still stores", async () => {
    const app = await appWith({ licence: { jws: licenceJws }, now: () => AFTER_GRACE });
    const { header, body } = await health(app);
    expect(header).toBe("expired");
    expect(body).toMatchObject({
      status: "ok",
      licence: "expired",
      checks: { licence: `The licence expired on ${LICENCE.expiresAt}`, licenceGraceEndsAt: GRACE_ENDS_AT },
    });
    await expectIngestStored(app, "expired");
  });

  it("follows the clock on a running server: valid, then grace, then expired", async () => {
    let now = BEFORE_EXPIRY;
    const app = await appWith({ licence: { jws: licenceJws }, now: () => now });
    expect((await health(app)).header).toBe("valid");
    now = IN_GRACE;
    expect((await health(app)).header).toBe("grace");
    now = AFTER_GRACE;
    expect((await health(app)).body.licence).toBe("expired");
    await expectIngestStored(app, "expired");
  });

  it("reports more nodes than licensed in health, and still stores", async () => {
    const app = await appWith({
      licence: { jws: licenceJws },
      now: () => BEFORE_EXPIRY,
      nodeCount: async () => LICENCE.maxNodes + 2,
    });
    const { header, body } = await health(app);
    expect(header).toBe("grace");
    expect(body.licence).toBe("grace");
    expect(body.checks).toMatchObject({
      licence: `${LICENCE.maxNodes + 2} nodes report, the licence covers ${LICENCE.maxNodes}`,
      licenceOverNodeLimit: "true",
      licenceMaxNodes: String(LICENCE.maxNodes),
    });
    await expectIngestStored(app, "grace");
  });

  it("keeps a licence at exactly its node limit valid", async () => {
    const app = await appWith({
      licence: { jws: licenceJws },
      now: () => BEFORE_EXPIRY,
      nodeCount: async () => LICENCE.maxNodes,
    });
    const { header, body } = await health(app);
    expect(header).toBe("valid");
    expect(body.checks.licenceOverNodeLimit).toBeUndefined();
  });

  it("reports a licence signed by another key as invalid, and still stores", async () => {
    const app = await appWith({ licence: { jws: foreignJws }, now: () => BEFORE_EXPIRY });
    const { header, body } = await health(app);
    expect(header).toBe("invalid");
    expect(body.licence).toBe("invalid");
    expect(body.checks.licence).toMatch(/signature does not verify/);
    // Nothing from an unverified licence is reported as if it were true.
    expect(body.checks.licenceId).toBeUndefined();
    expect(body.checks.licenceMaxNodes).toBeUndefined();
    await expectIngestStored(app, "invalid");
  });

  it("reports a licence file that cannot be read as invalid, naming the path", async () => {
    const file = join(dir, "no-such-licence.jws");
    const app = await appWith({ licence: { file }, now: () => BEFORE_EXPIRY });
    const { header, body } = await health(app);
    expect(header).toBe("invalid");
    expect(body.checks.licence).toBe(`licence.file ${file} cannot be read (ENOENT)`);
  });

  it("sets the header on authenticated answers and on error answers", async () => {
    const app = await appWith({ licence: { jws: licenceJws }, now: () => IN_GRACE });
    const ok = await app.inject({ url: "/v1/jobs", headers: bearer });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers["jobsight-licence"]).toBe("grace");

    const unauthenticated = await app.inject({ url: "/v1/jobs" });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.json().code).toBe("UNAUTHENTICATED");
    expect(unauthenticated.headers["jobsight-licence"]).toBe("grace");

    const badToken = await app.inject({
      url: "/v1/jobs",
      headers: { authorization: "Bearer not-a-token-at-all" },
    });
    expect(badToken.statusCode).toBe(401);
    expect(badToken.headers["jobsight-licence"]).toBe("grace");

    const invalidBody = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: bearer,
      payload: { records: "nope" },
    });
    expect(invalidBody.statusCode).toBe(400);
    expect(invalidBody.headers["jobsight-licence"]).toBe("grace");

    const unknown = await app.inject({ url: "/v1/no-such-route", headers: bearer });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["jobsight-licence"]).toBe("grace");
  });
});
