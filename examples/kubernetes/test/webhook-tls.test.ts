import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { Pod } from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admissionReview,
  argoWorkflow,
  bareJob,
  type Json,
  trainingPod,
} from "../../../packages/server/src/intelligence/schedulers/kubernetes/test-support/admission-fixtures.js";
import { applyJsonPatch } from "../../../packages/server/src/intelligence/schedulers/kubernetes/test-support/apply-json-patch.js";
import { type TestPki, testPki } from "../../../packages/server/src/platform/test-support/test-pki.js";
import {
  openTestStorage,
  type StorageFixture,
} from "../../../packages/server/test/integration/storage-fixture.js";
import { kustomize } from "./kustomize.js";
import { ADMIN_TOKEN, deployedServerConfig, POLICY, startWebhookServer } from "./webhook-server.js";

// The webhook as the API server meets it: the server started with the overlay's own flags and
// variables, serving TLS with a certificate for jobsight.jobsight.svc from a CA the client trusts
// (the caBundle), and AdmissionReview v1 requests exactly as the API server sends them: no
// Authorization header. The predictions are fixed, so the patch can be checked to the byte.

/** A Deployment's pod as the ReplicaSet controller creates it: no name, a generateName, an owner. */
function deploymentPod(): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: "notebook-7d4b9c-",
      namespace: "ml",
      labels: { app: "notebook", "pod-template-hash": "7d4b9c" },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "notebook-7d4b9c",
          uid: "7c9e",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: "notebook",
          image: "jupyter/base:2024",
          resources: { requests: { memory: "32Gi", cpu: "2" } },
        },
      ],
    },
  };
}

describe("the admission webhook over TLS, called as the Kubernetes API server calls it", () => {
  let pki: TestPki;
  let fx: StorageFixture;
  let app: Awaited<ReturnType<typeof startWebhookServer>>["app"];
  let ca: Buffer;
  let port: number;

  const post = (
    body: unknown,
    headers: Record<string, string> = {},
    path = "/v1/admission/mutate?timeout=3s",
  ) =>
    new Promise<{ status: number; body: Json }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          // The API server appends its deadline to the path of clientConfig.
          path,
          // The name in the webhook's clientConfig, checked against the certificate with the caBundle.
          servername: "jobsight.jobsight.svc",
          ca,
          headers: { "content-type": "application/json", accept: "application/json, */*", ...headers },
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
      req.end(payload);
    });

  beforeAll(async () => {
    pki = await testPki();
    await pki.ca("ca", "jobsight-ca");
    await pki.issue(
      "tls",
      "jobsight.jobsight.svc",
      "ca",
      "DNS:jobsight.jobsight.svc,DNS:jobsight.jobsight.svc.cluster.local",
    );
    ca = await readFile(pki.file("ca.crt"));
    fx = await openTestStorage("k8s_webhook");
    const config = deployedServerConfig(
      kustomize(join(import.meta.dirname, "..", "overlays", "embedded-database")),
      pki.dir,
    );
    const tls = { ...config.tls!, certFile: pki.file("tls.crt"), keyFile: pki.file("tls.key") };
    ({ app, port } = await startWebhookServer(config, tls, fx, pki.file("objects")));
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    await pki?.dispose();
  });

  it("resizes a Pod created with kubectl, and the patch applies to it and keeps the policy's cap", async () => {
    const pod = trainingPod();
    const res = await post(admissionReview(pod, { uid: "0b1c-pod", username: "alice@example.org" }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" });
    expect(res.body.response).toMatchObject({ uid: "0b1c-pod", allowed: true, patchType: "JSONPatch" });
    const patched = applyJsonPatch(
      pod,
      JSON.parse(Buffer.from(res.body.response.patch, "base64").toString()),
    );
    new Pod(patched as never).validate();
    const [main, sidecar] = patched.spec.containers;
    expect(main.resources.requests.memory).toBe(`${6 * 1024 - 128}Mi`);
    expect(sidecar).toEqual(pod.spec.containers[1]);
    expect(patched.spec.initContainers).toEqual(pod.spec.initContainers);
    const changes = JSON.parse(patched.metadata.annotations["jobsight.io/changes"]);
    expect(changes).toMatchObject({ modelVersion: "m-7", policy: "site" });
    const requested = main.resources.requests.memory as string;
    expect(Number.parseInt(requested, 10) * 2 ** 20).toBeLessThanOrEqual(POLICY.caps!.memory!);
  });

  it("resizes a Job's pod template and an Argo Workflow's templates, each patch applying cleanly", async () => {
    for (const [object, uid] of [
      [bareJob(), "0b1c-job"],
      [argoWorkflow(), "0b1c-wf"],
    ] as const) {
      const res = await post(admissionReview(object, { uid }));
      expect(res.status).toBe(200);
      expect(res.body.response).toMatchObject({ uid, allowed: true });
      if (res.body.response.patch) {
        const ops = JSON.parse(Buffer.from(res.body.response.patch, "base64").toString());
        expect(() => applyJsonPatch(object, ops)).not.toThrow();
        expect(ops.length).toBeGreaterThan(0);
      }
    }
  });

  it("handles a Deployment's pod made by its controller (no name) and admits a Deployment unchanged", async () => {
    const pod = await post(
      admissionReview(deploymentPod(), {
        uid: "0b1c-rs",
        username: "system:serviceaccount:kube-system:replicaset-controller",
      }),
    );
    expect(pod.status).toBe(200);
    expect(pod.body.response).toMatchObject({ uid: "0b1c-rs", allowed: true });
    if (pod.body.response.patch) {
      const ops = JSON.parse(Buffer.from(pod.body.response.patch, "base64").toString());
      new Pod(applyJsonPatch(deploymentPod(), ops) as never).validate();
    }
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "notebook", namespace: "ml" },
      spec: { selector: { matchLabels: { app: "notebook" } }, template: deploymentPod() },
    };
    const res = await post(admissionReview(deployment, { uid: "0b1c-deploy" }));
    expect(res.body.response).toEqual({ uid: "0b1c-deploy", allowed: true });
  });

  it("keeps every other route behind a token, and still takes a valid scheduler token's absence as no credential", async () => {
    const other = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/v1/policy", servername: "jobsight.jobsight.svc", ca },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(other).toBe(401);
    const bad = await post(admissionReview(trainingPod()), {
      authorization: "Bearer not-a-token-at-all-000",
    });
    expect(bad.status).toBe(401);
  });

  it("lets the guide's admin token register the cluster and issue the collectors' token (step 5)", async () => {
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const cluster = await post(
      { id: "k8s-prod", name: "k8s-prod", scheduler: "kubernetes" },
      auth,
      "/v1/clusters",
    );
    expect(cluster.status).toBe(201);
    const token = await post(
      { role: "collector", cluster: "k8s-prod", user: "svc-collector" },
      auth,
      "/v1/tokens",
    );
    expect(token.status).toBe(201);
    expect(typeof token.body.token).toBe("string");
  });
});
