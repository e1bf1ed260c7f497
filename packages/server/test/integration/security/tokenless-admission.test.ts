import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiRoutes } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app.js";
import { parseServerConfig } from "../../../src/config/parse-config.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";

// The Kubernetes API server calls the admission webhook without a bearer token; with
// admission.clientAuth network the server takes such calls as the cluster's. Generated from the
// route table: that exception opens the webhook and nothing else.

const ADMISSION = "admitKubernetesObject";
const urlOf = (path: string) => path.replace(/\{[^}]+\}/g, "x");

describe("requests without a token, by route, per admission.clientAuth", () => {
  let fx: StorageFixture;
  let dir: string;
  const apps: Record<string, FastifyInstance> = {};

  beforeAll(async () => {
    fx = await openTestStorage("tokenless");
    dir = await mkdtemp(join(tmpdir(), "jobsight-tokenless-"));
    const base = { objectStore: { dir }, rateLimit: { enabled: false }, http: { logLevel: "silent" } };
    for (const [name, admission] of Object.entries({
      token: {},
      network: { clientAuth: "network", cluster: "k8s1" },
      elsewhere: { clientAuth: "network", cluster: "k8s1", sources: ["10.96.0.0/12"] },
    })) {
      apps[name] = await buildApp({
        config: parseServerConfig({ ...base, admission }),
        storage: fx.storage,
        intelligence: false,
      });
    }
  });

  afterAll(async () => {
    for (const app of Object.values(apps)) await app.close();
    await fx?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const call = (app: FastifyInstance, route: (typeof apiRoutes)[number]) =>
    app.inject({
      method: route.method,
      url: urlOf(route.path),
      ...(route.method === "GET" || route.method === "DELETE"
        ? {}
        : route.rawBody
          ? { headers: { "content-type": "text/plain" }, payload: "x" }
          : {
              payload:
                route.operationId === ADMISSION
                  ? { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }
                  : {},
            }),
    });

  it("refuses every authenticated route with 401 in network mode, except the admission webhook", async () => {
    const answered: Record<string, number> = {};
    for (const route of apiRoutes.filter((r) => r.roles.length > 0)) {
      answered[route.operationId] = (await call(apps.network, route)).statusCode;
    }
    const { [ADMISSION]: admission, ...others } = answered;
    expect(Object.values(others).length).toBeGreaterThan(25);
    expect(Object.entries(others).filter(([, status]) => status !== 401)).toEqual([]);
    // Past authentication: no intelligence plane here, so the handler is missing (501).
    expect(admission).toBe(501);
  });

  it("refuses the webhook too without a token in token mode, and from outside admission.sources", async () => {
    const route = apiRoutes.find((r) => r.operationId === ADMISSION)!;
    for (const app of [apps.token, apps.elsewhere]) {
      const res = await call(app, route);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe("UNAUTHENTICATED");
    }
    // inject() comes from 127.0.0.1, outside 10.96.0.0/12: the message names it.
    expect((await call(apps.elsewhere, route)).json().message).toMatch(
      /127\.0\.0\.1 are not in admission\.sources/,
    );
  });
});
