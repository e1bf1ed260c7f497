import { apiRoutes } from "@jobsight/schemas";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import type { ObjectStore } from "../../data-plane/objects/object-store.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import { healthRoutes, type ModelReadiness } from "./health.js";
import { modelReadiness } from "./model-readiness.js";
import { registerApiRoutes } from "./register-api-routes.js";
import type { RouteDeps } from "./route-deps.js";

function deps(postgres: () => Promise<void>, objects: () => Promise<void>): RouteDeps {
  return {
    storage: { ping: postgres, flavour: "plain" } as unknown as DataPlaneStorage,
    objectStore: { check: objects } as unknown as ObjectStore,
    ingestGate: undefined as never,
    version: "1.2.3",
  };
}

/** `/readyz` served through the route table's wrapper, as the app serves it. */
async function readiness(d: RouteDeps, model?: () => ModelReadiness) {
  const app = Fastify({ logger: false });
  // Health routes need no token: the rate limit and authorisation hooks pass everything here.
  app.decorate("rateLimit", () => async () => {});
  app.decorate("authorize", async () => undefined);
  registerApiRoutes(app, healthRoutes(d, { model }), {
    routes: apiRoutes.filter((r) => r.operationId === "getReadiness" || r.operationId === "getHealth"),
  });
  try {
    const res = await app.inject({ url: "/readyz" });
    return {
      status: res.statusCode,
      retryAfter: res.headers["retry-after"],
      body: res.json() as { status: string; checks: Record<string, string> },
    };
  } finally {
    await app.close();
  }
}

const ok = async () => {};
const refused = async () => {
  throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
};

describe("health routes", () => {
  it("answers liveness without touching storage", async () => {
    const d = deps(refused, refused);
    expect(await healthRoutes(d).getHealth!({} as never)).toEqual({ status: "ok", version: "1.2.3" });
  });

  it("is ready with every check's status when all pass", async () => {
    const { status, body } = await readiness(deps(ok, ok), () => ({ ready: true, detail: "ok: m-7" }));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: "ok",
      checks: { postgres: "ok", objectStore: "ok", model: "ok: m-7", storage: "plain" },
    });
  });

  it("answers 503 naming the failing check when PostgreSQL is down", async () => {
    const { status, body, retryAfter } = await readiness(deps(refused, ok));
    expect(status).toBe(503);
    expect(retryAfter).toBe("5");
    expect(body.status).toBe("unavailable");
    expect(body.checks.postgres).toBe("unavailable: connect ECONNREFUSED 127.0.0.1:5432");
    expect(body.checks.objectStore).toBe("ok");
  });

  it("answers 503 while the model is loading", async () => {
    const { status, body } = await readiness(deps(ok, ok), () => ({ ready: false, detail: "loading" }));
    expect(status).toBe(503);
    expect(body.checks.model).toBe("loading");
  });
});

describe("modelReadiness", () => {
  it("is not ready until the service has started, then reports the model served", async () => {
    let finish = () => {};
    const startup = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const service = { activeVersion: undefined as string | undefined };
    const model = modelReadiness(service, startup);
    expect(model()).toEqual({ ready: false, detail: "loading" });
    finish();
    await startup;
    expect(model()).toEqual({ ready: true, detail: "ok: no model trained yet" });
    service.activeVersion = "m-3";
    expect(model()).toEqual({ ready: true, detail: "ok: m-3" });
  });

  it("is not ready when the service failed to start", async () => {
    const startup = Promise.reject(new Error("policy table missing"));
    const model = modelReadiness({ activeVersion: undefined }, startup);
    await startup.catch(() => {});
    expect(model()).toEqual({ ready: false, detail: "unavailable: policy table missing" });
  });
});
