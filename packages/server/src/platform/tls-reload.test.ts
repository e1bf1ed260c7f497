import { X509Certificate } from "node:crypto";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestPki, testPki } from "./test-support/test-pki.js";
import { httpsServerOptions, loadTlsMaterial } from "./tls.js";
import { reloadTlsOnChange } from "./tls-reload.js";

// cert-manager renews the webhook's certificate by rewriting the mounted Secret; the server must
// serve the new one to new connections without a restart, and keep the old one while the files
// are half-written.

describe("reloadTlsOnChange", () => {
  let pki: TestPki;
  let server: Server;
  let port: number;
  const serving = () =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerCertificate().serialNumber);
        socket.end();
      });
      socket.on("error", reject);
    });
  const serial = async (name: string) =>
    new X509Certificate(await readFile(pki.file(`${name}.crt`))).serialNumber;

  beforeAll(async () => {
    pki = await testPki();
    await pki.ca("ca", "Test CA");
    await pki.issue("old", "jobsight.jobsight.svc", "ca", "IP:127.0.0.1");
    await pki.issue("new", "jobsight.jobsight.svc", "ca", "IP:127.0.0.1");
    await copyFile(pki.file("old.crt"), pki.file("tls.crt"));
    await copyFile(pki.file("old.key"), pki.file("tls.key"));
    const files = { certFile: pki.file("tls.crt"), keyFile: pki.file("tls.key") };
    server = createServer(httpsServerOptions(await loadTlsMaterial(files)), (_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server?.close();
    await pki?.dispose();
  });

  it("serves the renewed certificate to new connections, and keeps the old one while the key does not match", async () => {
    const files = { certFile: pki.file("tls.crt"), keyFile: pki.file("tls.key") };
    const warnings: string[] = [];
    const reload = reloadTlsOnChange(server, files, {
      intervalMs: 60_000,
      log: { info: () => {}, warn: (_o, msg) => warnings.push(msg) },
    });
    try {
      expect(await serving()).toBe(await serial("old"));
      expect(await reload.check()).toBe(false);
      // Half-way through a rotation: the new certificate, the old key.
      await copyFile(pki.file("new.crt"), pki.file("tls.crt"));
      expect(await reload.check()).toBe(false);
      expect(warnings).toEqual(["TLS files changed but cannot be loaded yet; keeping the old ones"]);
      expect(await serving()).toBe(await serial("old"));
      await writeFile(pki.file("tls.key"), await readFile(pki.file("new.key")));
      expect(await reload.check()).toBe(true);
      expect(await serving()).toBe(await serial("new"));
      expect(await reload.check()).toBe(false);
    } finally {
      reload.stop();
    }
  });
});
