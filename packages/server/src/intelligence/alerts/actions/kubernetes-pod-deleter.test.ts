import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestPki, testPki } from "../../../platform/test-support/test-pki.js";
import { KubernetesPodDeleter } from "./kubernetes-pod-deleter.js";

const TOKEN = "sa-token-jobsight";
type Seen = { method: string; url: string; authorization?: string; body: unknown };

// The API server's answers to DELETE pod, in its documented shapes: the deleted Pod (200), or a
// Status with reason NotFound (404) or Forbidden (403).
function status(code: number, reason: string, message: string, name: string) {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    details: { name, kind: "pods" },
    code,
  };
}

describe("KubernetesPodDeleter against an API server speaking the delete-pod API over TLS", () => {
  let pki: TestPki;
  let server: Server;
  let apiUrl: string;
  const seen: Seen[] = [];
  const pods = new Set(["ml/train-7f9c", "ml/eval-1"]);

  beforeAll(async () => {
    pki = await testPki();
    await pki.ca("ca", "Test Kubernetes CA");
    await pki.issue("apiserver", "kube-apiserver", "ca", "IP:127.0.0.1");
    await writeFile(pki.file("token"), `${TOKEN}\n`);
    await writeFile(pki.file("wrong-token"), "not-the-token\n");
    server = createServer(
      { cert: readFileSync(pki.file("apiserver.crt")), key: readFileSync(pki.file("apiserver.key")) },
      (req, res) => {
        let data = "";
        req.on("data", (c) => {
          data += c;
        });
        req.on("end", () => {
          seen.push({
            method: req.method ?? "",
            url: req.url ?? "",
            authorization: req.headers.authorization,
            body: JSON.parse(data || "null"),
          });
          const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/?]+)$/.exec(req.url ?? "");
          const reply = (code: number, body: unknown) => {
            res.writeHead(code, { "content-type": "application/json" });
            res.end(JSON.stringify(body));
          };
          if (req.method !== "DELETE" || !m)
            return reply(
              404,
              status(404, "NotFound", "the server could not find the requested resource", ""),
            );
          const [, ns, name] = m;
          if (req.headers.authorization !== `Bearer ${TOKEN}`)
            return reply(
              403,
              status(
                403,
                "Forbidden",
                `pods "${name}" is forbidden: User "system:anonymous" cannot delete resource "pods" in API group "" in the namespace "${ns}"`,
                name,
              ),
            );
          if (!pods.delete(`${ns}/${name}`))
            return reply(404, status(404, "NotFound", `pods "${name}" not found`, name));
          reply(200, {
            kind: "Pod",
            apiVersion: "v1",
            metadata: { name, namespace: ns, deletionTimestamp: new Date().toISOString() },
          });
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    apiUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await pki?.dispose();
  });

  const deleter = (tokenFile = "token") =>
    new KubernetesPodDeleter({
      apiUrl,
      tokenFile: pki.file(tokenFile),
      caFile: pki.file("ca.crt"),
      gracePeriodSeconds: 15,
    });

  it("deletes the job's pod with the service account's token and DeleteOptions", async () => {
    expect(await deleter().cancel("ml/train-7f9c")).toEqual({
      ok: true,
      detail: "DELETE /api/v1/namespaces/ml/pods/train-7f9c: 200",
    });
    expect(seen.at(-1)).toEqual({
      method: "DELETE",
      url: "/api/v1/namespaces/ml/pods/train-7f9c",
      authorization: `Bearer ${TOKEN}`,
      body: {
        apiVersion: "v1",
        kind: "DeleteOptions",
        gracePeriodSeconds: 15,
        propagationPolicy: "Background",
      },
    });
  });

  it("reports the API server's Status when it refuses, and never throws", async () => {
    expect(await deleter().cancel("ml/train-7f9c")).toEqual({
      ok: false,
      detail: 'DELETE /api/v1/namespaces/ml/pods/train-7f9c: 404 NotFound: pods "train-7f9c" not found',
    });
    const forbidden = await deleter("wrong-token").cancel("ml/eval-1");
    expect(forbidden.ok).toBe(false);
    expect(forbidden.detail).toMatch(/: 403 Forbidden: pods "eval-1" is forbidden/);
    expect(pods.has("ml/eval-1")).toBe(true);
  });

  it("refuses an id that is not namespace/pod before sending anything, and a server it cannot trust", async () => {
    const before = seen.length;
    expect((await deleter().cancel("4242")).ok).toBe(false);
    expect((await deleter().cancel("ml/../../nodes/n1")).detail).toMatch(/^not a Kubernetes pod/);
    expect(seen.length).toBe(before);
    const untrusted = new KubernetesPodDeleter({ apiUrl, tokenFile: pki.file("token") });
    const answer = await untrusted.cancel("ml/eval-1");
    expect(answer.ok).toBe(false);
    expect(answer.detail).toMatch(/certificate/i);
  });
});
