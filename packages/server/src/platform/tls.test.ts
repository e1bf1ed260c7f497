import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { AddressInfo } from "node:net";
import fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecurityConfigError } from "./security-config-error.js";
import { type TestPki, testPki } from "./test-support/test-pki.js";
import { httpsServerOptions, loadTlsMaterial } from "./tls.js";

let pki: TestPki;
const file = (name: string) => pki.file(name);

// A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl.
beforeAll(async () => {
  pki = await testPki();
  await pki.ca("ca", "Test CA");
  await pki.issue("server", "server", "ca", "IP:127.0.0.1,DNS:localhost");
  await pki.issue("client", "client", "ca", undefined, "extendedKeyUsage=clientAuth");
});

afterAll(async () => {
  await pki.dispose();
});

function get(url: string, options: RequestOptions = {}): Promise<{ status: number; body: string }> {
  const send = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function serve(https: ReturnType<typeof httpsServerOptions>) {
  const app = fastify({ https });
  app.get("/healthz", async () => ({ status: "ok" }));
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
}

describe("loadTlsMaterial", () => {
  it("reads and checks the certificate and key", async () => {
    const tls = await loadTlsMaterial({ certFile: file("server.crt"), keyFile: file("server.key") });
    expect(tls.subject).toContain("CN=server");
    expect(Date.parse(tls.notAfter)).toBeGreaterThan(Date.now());
  });

  it("names the file at fault", async () => {
    const attempt = (o: Parameters<typeof loadTlsMaterial>[0]) => loadTlsMaterial(o).catch((e: unknown) => e);
    expect(await attempt({ certFile: file("server.crt"), keyFile: file("client.key") })).toMatchObject({
      path: "tls.keyFile",
    });
    expect(await attempt({ certFile: file("missing.crt"), keyFile: file("server.key") })).toMatchObject({
      path: "tls.certFile",
    });
    expect(await attempt({ certFile: file("server.ext"), keyFile: file("server.key") })).toBeInstanceOf(
      SecurityConfigError,
    );
    expect(
      await attempt({
        certFile: file("server.crt"),
        keyFile: file("server.key"),
        requireClientCertificate: true,
      }),
    ).toMatchObject({ path: "tls.caFile" });
  });
});

describe("HTTPS listener", () => {
  it("serves over TLS, and neither plain HTTP nor an untrusted client gets through", async () => {
    const tls = await loadTlsMaterial({ certFile: file("server.crt"), keyFile: file("server.key") });
    const { app, port } = await serve(httpsServerOptions(tls));
    try {
      const ca = await readFile(file("ca.crt"));
      expect(await get(`https://127.0.0.1:${port}/healthz`, { ca })).toEqual({
        status: 200,
        body: '{"status":"ok"}',
      });
      await expect(get(`https://127.0.0.1:${port}/healthz`)).rejects.toThrow(
        /self.signed|unable to verify|issuer/i,
      );
      await expect(get(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      await expect(get(`https://127.0.0.1:${port}/healthz`, { ca, maxVersion: "TLSv1.1" })).rejects.toThrow();
    } finally {
      await app.close();
    }
  });

  it("requires a client certificate from the CA under mutual TLS", async () => {
    const tls = await loadTlsMaterial({
      certFile: file("server.crt"),
      keyFile: file("server.key"),
      caFile: file("ca.crt"),
      requireClientCertificate: true,
    });
    const { app, port } = await serve(httpsServerOptions(tls));
    const ca = await readFile(file("ca.crt"));
    try {
      await expect(get(`https://127.0.0.1:${port}/healthz`, { ca })).rejects.toThrow();
      const client = {
        ca,
        cert: await readFile(file("client.crt")),
        key: await readFile(file("client.key")),
      };
      expect((await get(`https://127.0.0.1:${port}/healthz`, client)).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
