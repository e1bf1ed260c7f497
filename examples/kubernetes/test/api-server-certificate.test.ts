import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admissionReview,
  type Json,
  trainingPod,
} from "../../../packages/server/src/intelligence/schedulers/kubernetes/test-support/admission-fixtures.js";
import { type TestPki, testPki } from "../../../packages/server/src/platform/test-support/test-pki.js";
import {
  openTestStorage,
  type StorageFixture,
} from "../../../packages/server/test/integration/storage-fixture.js";
import { createdByGuide, crossReferenceProblems, podTemplates } from "./cross-references.js";
import { kubectlKustomize, kustomize, type Manifest, yamlDocuments } from "./kustomize.js";
import { schemaProblems } from "./openapi-schemas.js";
import { deployedServerConfig, startWebhookServer } from "./webhook-server.js";

// The `certificate` way for clusters whose API server the site configures: the control-plane
// files of api-server/ (AdmissionConfiguration and its kubeconfig) and the server's side
// (components/api-server-certificate) must agree, and the certificate the kubeconfig names must
// get a review through while a call without it, or with another name, is refused.

const KUBERNETES = join(import.meta.dirname, "..");
const [admissionConfiguration] = yamlDocuments(
  join(KUBERNETES, "api-server", "admission-configuration.yaml"),
);
const [kubeconfig] = yamlDocuments(join(KUBERNETES, "api-server", "webhook-kubeconfig.yaml"));
const [webhookConfiguration] = yamlDocuments(join(KUBERNETES, "base", "mutating-webhook.yaml"));

/** The kubeconfig user kube-apiserver picks for a webhook: exact name, then `*.suffix`, then `*`. */
function userFor(config: Manifest, host: string): Manifest | undefined {
  const users = (config.users ?? []) as Manifest[];
  const exact = users.find((u) => u.name === host);
  if (exact) return exact.user;
  const wildcard = users.find((u) => u.name.startsWith("*.") && host.endsWith(u.name.slice(1)));
  return (wildcard ?? users.find((u) => u.name === "*"))?.user;
}

/** The name kube-apiserver gives a Service-referenced webhook: `svc.ns.svc`, `:port` unless 443. */
function webhookHost(service: Manifest): string {
  const host = `${service.name}.${service.namespace}.svc`;
  return (service.port ?? 443) === 443 ? host : `${host}:${service.port}`;
}

/**
 * An overlay built with the component, as `components: [...]` in the site's kustomization, by the
 * test resolver and (where installed) by `kubectl kustomize`.
 */
function withComponent(overlay: string): { objects: Manifest[]; kubectl?: Manifest[] } {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-kustomize-"));
  try {
    const rel = (p: string) => relative(dir, join(KUBERNETES, p));
    writeFileSync(
      join(dir, "kustomization.yaml"),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${rel(`overlays/${overlay}`)}]\ncomponents: [${rel("components/api-server-certificate")}]\n`,
    );
    return { objects: kustomize(dir), kubectl: kubectlKustomize(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the API server's client certificate (AdmissionConfiguration)", () => {
  it("points the mutating webhook plugin at the kubeconfig beside it", () => {
    expect(admissionConfiguration).toMatchObject({
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "AdmissionConfiguration",
    });
    const plugins = admissionConfiguration.plugins as Manifest[];
    const plugin = plugins.find((p) => p.name === "MutatingAdmissionWebhook");
    expect(plugin?.configuration).toMatchObject({
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "WebhookAdmissionConfiguration",
    });
    const file = plugin!.configuration.kubeConfigFile as string;
    expect(file.startsWith("/")).toBe(true);
    expect(basename(file)).toBe("webhook-kubeconfig.yaml");
    expect(kubeconfig).toMatchObject({ apiVersion: "v1", kind: "Config" });
    // The certificate sits beside the files it is configured with.
    const user = userFor(kubeconfig, webhookHost(webhookConfiguration.webhooks[0].clientConfig.service));
    expect(user).toBeDefined();
    expect(dirname(user!["client-certificate"])).toBe(dirname(file));
    expect(dirname(user!["client-key"])).toBe(dirname(file));
  });

  it("gives the certificate to Jobsight's webhook only", () => {
    expect(userFor(kubeconfig, "jobsight.jobsight.svc")).toBeDefined();
    expect(userFor(kubeconfig, "other-webhook.kube-system.svc")).toBeUndefined();
    expect(userFor(kubeconfig, "jobsight.jobsight.svc:8443")).toBeUndefined();
  });

  describe.each(["embedded-database", "external-database"])("the component on overlay %s", (overlay) => {
    const { objects, kubectl } = withComponent(overlay);
    const external = createdByGuide(readFileSync(join(KUBERNETES, "README.md"), "utf8"));

    it("builds valid objects whose Secrets, volumes and mounts all resolve", async () => {
      const problems: string[] = [];
      for (const o of objects) problems.push(...(await schemaProblems(o)));
      expect(problems).toEqual([]);
      expect(crossReferenceProblems(objects, external)).toEqual([]);
    });

    it.skipIf(kubectl === undefined)("builds the same objects as kubectl kustomize", () => {
      const key = (o: Manifest) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
      const ours = new Map(objects.map((o) => [key(o), o]));
      expect(kubectl!.map(key).sort()).toEqual([...ours.keys()].sort());
      for (const o of kubectl!) expect(ours.get(key(o))).toEqual(o);
    });

    it("starts the server in certificate mode with the CA from the guide's Secret", () => {
      const dir = mkdtempSync(join(tmpdir(), "jobsight-guide-"));
      try {
        const config = deployedServerConfig(objects, dir);
        expect(config.admission).toMatchObject({
          clientAuth: "certificate",
          cluster: "k8s-prod",
          clientNames: ["kube-apiserver-jobsight"],
        });
        const server = podTemplates(objects).find((t) => t.owner.metadata.name === "jobsight-server")!.pod;
        const mount = server.spec.containers[0].volumeMounts.find(
          (m: Manifest) => m.mountPath === dirname(config.tls!.caFile!),
        );
        const volume = server.spec.volumes.find((v: Manifest) => v.name === mount?.name);
        expect(volume?.secret?.secretName).toBe("jobsight-apiserver-client-ca");
        // The guide's openssl command makes the certificate with the name the server accepts.
        expect(readFileSync(join(KUBERNETES, "README.md"), "utf8")).toContain(
          `-subj /CN=${config.admission!.clientNames[0]} `,
        );
        expect(external.get("jobsight/jobsight-apiserver-client-ca")).toEqual(
          new Set([basename(config.tls!.caFile!)]),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

describe("the webhook with the component, called with and without the kubeconfig's certificate", () => {
  let pki: TestPki;
  let fx: StorageFixture;
  let app: Awaited<ReturnType<typeof startWebhookServer>>["app"];
  let port: number;
  let user: Manifest;

  // The kubeconfig's files, as they are on the control-plane node, found in the test's PKI.
  const onNode = (path: string) => pki.file(basename(path));

  const review = async (client?: { cert: string; key: string }) => {
    const [ca, cert, key] = await Promise.all([
      readFile(pki.file("ca.crt")),
      client ? readFile(client.cert) : undefined,
      client ? readFile(client.key) : undefined,
    ]);
    return new Promise<{ status: number; body: Json }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/v1/admission/mutate?timeout=3s",
          servername: "jobsight.jobsight.svc",
          ca,
          cert,
          key,
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.on("data", (c) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(admissionReview(trainingPod(), { uid: "cert-1", username: "alice" })));
    });
  };

  beforeAll(async () => {
    pki = await testPki();
    await pki.ca("ca", "jobsight-ca");
    await pki.issue("tls", "jobsight.jobsight.svc", "ca", "DNS:jobsight.jobsight.svc");
    const { objects } = withComponent("embedded-database");
    const config = deployedServerConfig(objects, pki.dir);
    const [name] = config.admission!.clientNames;
    user = userFor(kubeconfig, "jobsight.jobsight.svc")!;
    // The README's certificates: a client CA (the Secret's ca.crt) and the kubeconfig's pair.
    await pki.ca("client-ca", "jobsight-apiserver-client-ca");
    await pki.issue(
      basename(user["client-certificate"], ".crt"),
      name!,
      "client-ca",
      undefined,
      "extendedKeyUsage=clientAuth",
    );
    await pki.issue("impostor", "someone-else", "client-ca", undefined, "extendedKeyUsage=clientAuth");
    fx = await openTestStorage("k8s_webhook_cert");
    const tls = {
      ...config.tls!,
      certFile: pki.file("tls.crt"),
      keyFile: pki.file("tls.key"),
      caFile: pki.file("client-ca.crt"),
    };
    ({ app, port } = await startWebhookServer(config, tls, fx, pki.file("objects")));
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    await pki?.dispose();
  });

  it("answers the review of a caller with the kubeconfig's certificate with a patch", async () => {
    const res = await review({ cert: onNode(user["client-certificate"]), key: onNode(user["client-key"]) });
    expect(res.status).toBe(200);
    expect(res.body.response).toMatchObject({ uid: "cert-1", allowed: true, patchType: "JSONPatch" });
  });

  it("refuses a caller without a certificate, and one whose certificate has another name", async () => {
    const none = await review();
    expect(none.status).toBe(401);
    expect(JSON.stringify(none.body)).toContain("needs a client certificate");
    const other = await review({ cert: pki.file("impostor.crt"), key: pki.file("impostor.key") });
    expect(other.status).toBe(401);
    expect(JSON.stringify(other.body)).toContain("is not one of admission.clientNames");
  });
});
