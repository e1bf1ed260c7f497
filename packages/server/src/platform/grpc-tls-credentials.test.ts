import { readFile } from "node:fs/promises";
import {
  type ChannelCredentials,
  credentials,
  type handleUnaryCall,
  makeGenericClientConstructor,
  Server,
  type ServiceDefinition,
} from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReloadableGrpcCredentials } from "./grpc-tls-credentials.js";
import { type TestPki, testPki } from "./test-support/test-pki.js";
import { loadTlsMaterial } from "./tls.js";

// Real TLS handshakes against a real grpc-js server: the certificate served, the one served after
// a renewal, and the client certificate asked for under mutual TLS.

let pki: TestPki;
const file = (name: string) => pki.file(name);

beforeAll(async () => {
  pki = await testPki();
  await pki.ca("ca", "Test CA");
  await pki.ca("ca2", "Renewed CA");
  await pki.issue("server", "server", "ca", "IP:127.0.0.1,DNS:localhost");
  await pki.issue("renewed", "server", "ca2", "IP:127.0.0.1,DNS:localhost");
  await pki.issue("client", "client", "ca", undefined, "extendedKeyUsage=clientAuth");
});

afterAll(async () => {
  await pki.dispose();
});

const service: ServiceDefinition = {
  ping: {
    path: "/jobsight.test.Ping/Ping",
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
  },
};
const ping: handleUnaryCall<Buffer, Buffer> = (call, callback) =>
  callback(null, Buffer.from(`pong:${call.request}`));
const Client = makeGenericClientConstructor(service, "Ping");

async function serve(creds: ReloadableGrpcCredentials): Promise<{ server: Server; port: number }> {
  const server = new Server();
  server.addService(service, { ping });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", creds, (e, p) => (e ? reject(e) : resolve(p))),
  );
  return { server, port };
}

function call(port: number, creds: ChannelCredentials): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    // TLS server names must be host names (RFC 6066), so the channel names the certificate's DNS entry.
    const client = new Client(`127.0.0.1:${port}`, creds, { "grpc.ssl_target_name_override": "localhost" });
    (
      client as unknown as { ping: (r: Buffer, o: object, cb: (e: Error | null, v?: Buffer) => void) => void }
    ).ping(Buffer.from("hi"), { deadline: new Date(Date.now() + 3000) }, (e, v) => {
      client.close();
      if (e) reject(e);
      else resolve(String(v));
    });
  });
}

const trusting = async (ca: string) => credentials.createSsl(await readFile(file(`${ca}.crt`)));

describe("ReloadableGrpcCredentials", () => {
  it("accepts TLS clients that trust the CA and refuses plaintext ones", async () => {
    const creds = new ReloadableGrpcCredentials(
      await loadTlsMaterial({ certFile: file("server.crt"), keyFile: file("server.key") }),
    );
    const { server, port } = await serve(creds);
    try {
      expect(await call(port, await trusting("ca"))).toBe("pong:hi");
      await expect(call(port, credentials.createInsecure())).rejects.toThrow();
    } finally {
      server.forceShutdown();
    }
  });

  it("serves the renewed certificate to new connections after update, without a restart", async () => {
    const creds = new ReloadableGrpcCredentials(
      await loadTlsMaterial({ certFile: file("server.crt"), keyFile: file("server.key") }),
    );
    const { server, port } = await serve(creds);
    try {
      await expect(call(port, await trusting("ca2"))).rejects.toThrow();
      creds.update(await loadTlsMaterial({ certFile: file("renewed.crt"), keyFile: file("renewed.key") }));
      expect(await call(port, await trusting("ca2"))).toBe("pong:hi");
      await expect(call(port, await trusting("ca"))).rejects.toThrow();
    } finally {
      server.forceShutdown();
    }
  });

  it("asks for a client certificate from the CA under mutual TLS", async () => {
    const creds = new ReloadableGrpcCredentials(
      await loadTlsMaterial({
        certFile: file("server.crt"),
        keyFile: file("server.key"),
        caFile: file("ca.crt"),
        requireClientCertificate: true,
      }),
    );
    const { server, port } = await serve(creds);
    try {
      await expect(call(port, await trusting("ca"))).rejects.toThrow();
      const withCert = credentials.createSsl(
        await readFile(file("ca.crt")),
        await readFile(file("client.key")),
        await readFile(file("client.crt")),
      );
      expect(await call(port, withCert)).toBe("pong:hi");
    } finally {
      server.forceShutdown();
    }
  });
});
