import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import { ModelRegistry } from "../../../src/intelligence/registry/model-registry.js";
import { PRINCIPALS, type TestPrincipal } from "../test-server-config.js";
import {
  bearer,
  FAST_TRAINING,
  type IntelligenceFixture,
  openIntelligenceFixture,
  testApp,
  testService,
} from "./intelligence-fixture.js";

// `GET /v1/models`, `POST /v1/models/{version}/promote` and `POST /v1/models/rollback` over a real
// registry: two trained versions (one accepted, one rejected), promoted and rolled back through
// the API, with the answering server serving the new version at once.

const admin: TestPrincipal = { token: "admin-site-token-00000000001", role: "admin", user: "root" };
const { alice, platform } = PRINCIPALS;

describe("model routes: status, promote, rollback", () => {
  let f: IntelligenceFixture;
  let service: IntelligenceService;
  let app: FastifyInstance;
  let first: string;
  let rejected: string;

  const post = (who: TestPrincipal, url: string) =>
    app.inject({ method: "POST", url, headers: bearer(who.token) });
  const status = async () =>
    (await app.inject({ method: "GET", url: "/v1/models", headers: bearer(admin.token) })).json();

  beforeAll(async () => {
    f = await openIntelligenceFixture("model_routes", 2000);
    service = testService(f, { mode: "live" });
    await service.start();
    app = await testApp(f, service, [admin, alice, platform]);
    const accepted = await service.train({ trigger: "test" });
    expect(accepted).toMatchObject({ trained: true, accepted: true });
    first = accepted.version as string;
    // Calibrated to let a quarter of the jobs need more: refused at training, kept as rejected.
    const worse = await service.train({
      trigger: "test",
      training: { ...FAST_TRAINING, conformal: { missRate: 0.25, usageMissRate: 0.25 } },
    });
    expect(worse).toMatchObject({ trained: true, accepted: false });
    rejected = worse.version as string;
  });

  afterAll(async () => {
    await app?.close();
    await service?.stop();
    await f?.dispose();
  });

  it("shows the registry to platform and admin, not to researchers", async () => {
    const res = await app.inject({ method: "GET", url: "/v1/models", headers: bearer(platform.token) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ activeVersion: first, servedVersion: first });
    expect(body.models.map((m: { version: string; status: string }) => [m.version, m.status])).toEqual([
      [rejected, "rejected"],
      [first, "active"],
    ]);
    expect(body.models[0]).toMatchObject({
      accepted: false,
      trigger: "test",
      reasons: expect.arrayContaining([expect.stringMatching(/under-prediction/)]),
    });
    expect(body.models[1].backtest.memory).toMatchObject({
      evaluated: expect.any(Number),
      coverage: expect.any(Number),
    });
    const researcher = await app.inject({ method: "GET", url: "/v1/models", headers: bearer(alice.token) });
    expect(researcher.statusCode).toBe(403);
  });

  it("refuses promote and rollback to every role but admin", async () => {
    for (const who of [alice, platform]) {
      expect((await post(who, `/v1/models/${rejected}/promote`)).statusCode).toBe(403);
      expect((await post(who, "/v1/models/rollback")).statusCode).toBe(403);
    }
    expect((await status()).activeVersion).toBe(first);
  });

  it("promotes a rejected version, serves it at once, and rolls back to the one it replaced", async () => {
    const promoted = await post(admin, `/v1/models/${rejected}/promote`);
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toEqual({
      previousVersion: first,
      activeVersion: rejected,
      servedVersion: rejected,
    });
    expect(service.activeVersion).toBe(rejected);
    expect((await status()).models.map((m: { status: string }) => m.status)).toEqual(["active", "retired"]);

    const again = await post(admin, `/v1/models/${rejected}/promote`);
    expect(again.json()).toEqual({
      previousVersion: rejected,
      activeVersion: rejected,
      servedVersion: rejected,
    });

    const back = await post(admin, "/v1/models/rollback");
    expect(back.statusCode).toBe(200);
    expect(back.json()).toEqual({ previousVersion: rejected, activeVersion: first, servedVersion: first });
    expect(service.activeVersion).toBe(first);
    expect((await status()).models.map((m: { status: string }) => m.status)).toEqual([
      "rolled_back",
      "active",
    ]);

    const nothing = await post(admin, "/v1/models/rollback");
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json()).toMatchObject({ code: "NO_EARLIER_MODEL" });
  });

  it("refuses an unknown version (404) and one whose files are gone (409), changing nothing", async () => {
    const unknown = await post(admin, "/v1/models/m-none/promote");
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe("NOT_FOUND");

    const registry = new ModelRegistry(f.fx.storage.pool, f.objects);
    const kept = (await registry.get(first))!;
    await registry.record({ ...kept, version: "m-lost", manifestSha256: "0".repeat(64) }, false);
    const lost = await post(admin, "/v1/models/m-lost/promote");
    expect(lost.statusCode).toBe(409);
    expect(lost.json()).toMatchObject({
      code: "MODEL_NOT_SERVABLE",
      message: expect.stringMatching(/^Model m-lost cannot be served: /),
    });
    expect(await status()).toMatchObject({ activeVersion: first, servedVersion: first });
    expect(service.activeVersion).toBe(first);
  });
});
