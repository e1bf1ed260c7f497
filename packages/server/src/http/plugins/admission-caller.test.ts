import { readFile } from "node:fs/promises";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmissionConfig } from "../../config/admission-config.js";
import { type TestPki, testPki } from "../../platform/test-support/test-pki.js";
import { httpsServerOptions, loadTlsMaterial } from "../../platform/tls.js";
import { ADMISSION_OPERATION, admissionCaller } from "./admission-caller.js";
import { authPlugin } from "./auth.js";
import { errorHandlerPlugin } from "./error-handler.js";

// The API server authenticated by its client certificate (AdmissionConfiguration kubeconfig):
// real TLS handshakes, the certificate checked against tls.caFile and its name against
// admission.clientNames; other routes still want a token.

describe("admissionCaller with clientAuth certificate", () => {
  let pki: TestPki;
  let app: FastifyInstance;
  let port: number;

  const call = async (path: string, client?: string) => {
    const [ca, cert, key] = await Promise.all([
      readFile(pki.file("ca.crt")),
      client ? readFile(pki.file(`${client}.crt`)) : undefined,
      client ? readFile(pki.file(`${client}.key`)) : undefined,
    ]);
    return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path, method: "POST", ca, cert, key }, (res) => {
        let text = "";
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on("error", reject);
      req.end();
    });
  };

  beforeAll(async () => {
    pki = await testPki();
    await pki.ca("ca", "Test CA");
    await pki.ca("other-ca", "Other CA");
    await pki.issue("server", "server", "ca", "IP:127.0.0.1");
    await pki.issue("apiserver", "kube-apiserver", "ca");
    await pki.issue("someone", "someone", "ca");
    await pki.issue("stranger", "kube-apiserver", "other-ca");
    const tls = await loadTlsMaterial({
      certFile: pki.file("server.crt"),
      keyFile: pki.file("server.key"),
      caFile: pki.file("ca.crt"),
    });
    const admission: AdmissionConfig = {
      clientAuth: "certificate",
      cluster: "k8s1",
      clientNames: ["kube-apiserver"],
      sources: [],
    };
    app = fastify({ https: httpsServerOptions(tls) });
    await app.register(errorHandlerPlugin, { bodyLimitBytes: 1024 });
    await app.register(authPlugin, { verifiers: [], withoutToken: admissionCaller(admission) });
    for (const [url, operationId] of [
      ["/v1/admission/mutate", ADMISSION_OPERATION],
      ["/v1/policy", "getPolicy"],
    ]) {
      app.post(url, { config: { operationId } }, async (req) => app.authorize(req, ["scheduler"]));
    }
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app?.close();
    await pki?.dispose();
  });

  it("takes the API server's certificate as a scheduler of the configured cluster", async () => {
    const res = await call("/v1/admission/mutate", "apiserver");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      role: "scheduler",
      user: "kube-apiserver",
      cluster: "k8s1",
      via: "client-certificate",
    });
  });

  it("refuses no certificate, another name, and a certificate of another CA", async () => {
    for (const client of [undefined, "someone", "stranger"]) {
      const res = await call("/v1/admission/mutate", client);
      expect(res.status, String(client)).toBe(401);
      expect(res.body.code).toBe("UNAUTHENTICATED");
    }
    expect((await call("/v1/admission/mutate", "someone")).body.message).toMatch(
      /someone is not one of admission.clientNames/,
    );
  });

  it("gives the certificate nothing on any other route", async () => {
    expect((await call("/v1/policy", "apiserver")).status).toBe(401);
  });

  it("is off in token mode and without a cluster", () => {
    expect(admissionCaller({ clientAuth: "token", clientNames: [], sources: [] })).toBeUndefined();
    expect(admissionCaller(undefined)).toBeUndefined();
  });
});
