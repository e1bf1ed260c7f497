import { readFile } from "node:fs/promises";
import { request } from "node:https";
import { join } from "node:path";
import { Workflow } from "@kubernetes-models/argo-workflows/argoproj.io/v1alpha1";
import { applyPatch, type Operation } from "fast-json-patch";
import { Deployment } from "kubernetes-models/apps/v1";
import { Job } from "kubernetes-models/batch/v1";
import { Pod } from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Json } from "../../../packages/server/src/intelligence/schedulers/kubernetes/test-support/admission-fixtures.js";
import { type TestPki, testPki } from "../../../packages/server/src/platform/test-support/test-pki.js";
import {
  openTestStorage,
  type StorageFixture,
} from "../../../packages/server/test/integration/storage-fixture.js";
import { kustomize, type Manifest } from "./kustomize.js";
import { deployedServerConfig, GiB, POLICY, startWebhookServer } from "./webhook-server.js";

// The recorded AdmissionReviews (test-support/recorded, sources in its README) sent to the
// server started with the overlay's settings, over TLS and without an Authorization header, as
// kube-apiserver sends them; each patch is applied with an RFC 6902 implementation that refuses
// what the API server's would, and the result must still be a valid object within the policy.

const RECORDED = join(
  import.meta.dirname,
  "../../../packages/server/src/intelligence/schedulers/kubernetes/test-support/recorded",
);
const OVERLAY = join(import.meta.dirname, "..", "overlays", "embedded-database");
const recorded = async (name: string): Promise<Json> =>
  JSON.parse(await readFile(join(RECORDED, `${name}.json`), "utf8"));

const UNITS: Record<string, number> = { "": 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };
function bytes(quantity: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|Ti)?$/.exec(quantity);
  if (!m) throw new Error(`not a binary quantity: ${quantity}`);
  return Number(m[1]) * UNITS[m[2] ?? ""];
}

/** Whether a webhook's rules select the request (group, version, resource, operation). */
function selects(hook: Manifest, req: Json): boolean {
  const has = (list: string[], v: string) => list.includes("*") || list.includes(v);
  return (hook.rules as Manifest[]).some(
    (r) =>
      has(r.apiGroups, req.resource.group) &&
      has(r.apiVersions, req.resource.version) &&
      has(r.resources, req.resource.resource) &&
      has(r.operations, req.operation),
  );
}

// kubernetes-models checks metadata against ObjectMeta, where a creationTimestamp is a string:
// the API server sets it after admission, so the checked copy carries the time it will have.
function stored<T extends Json>(object: T): T {
  const copy = structuredClone(object);
  copy.metadata.creationTimestamp = "2025-03-14T09:26:53Z";
  const template = copy.spec?.template?.metadata;
  if (template) delete template.creationTimestamp;
  return copy;
}

describe("recorded AdmissionReviews, sent over TLS as kube-apiserver sends them", () => {
  let pki: TestPki;
  let fx: StorageFixture;
  let app: Awaited<ReturnType<typeof startWebhookServer>>["app"];
  let ca: Buffer;
  let port: number;
  let hook: Manifest;

  const post = (body: unknown) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: Json }>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/v1/admission/mutate?timeout=3s",
          servername: "jobsight.jobsight.svc",
          ca,
          headers: { "content-type": "application/json", accept: "application/json, */*" },
        },
        (res) => {
          let text = "";
          res.on("data", (c) => {
            text += c;
          });
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }),
          );
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    });

  /** Send a review; the object after the patch, applied as the API server applies it. */
  const admit = async (review: Json) => {
    const res = await post(review);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" });
    expect(res.body.response).toMatchObject({ uid: review.request.uid, allowed: true });
    const response = res.body.response;
    const ops: Operation[] = response.patch
      ? JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"))
      : [];
    expect(response.patchType).toBe(ops.length > 0 ? "JSONPatch" : undefined);
    // validate = true: a path whose parent is missing or an index out of range throws.
    const object = applyPatch(review.request.object, ops, true, false).newDocument as Json;
    return { response, ops, object };
  };

  const withinPolicy = (containers: Json[]) => {
    for (const c of containers) {
      for (const kind of ["requests", "limits"]) {
        const memory = c.resources?.[kind]?.memory;
        if (memory) expect(bytes(memory), `${c.name} ${kind}`).toBeLessThanOrEqual(POLICY.caps!.memory!);
      }
    }
  };

  beforeAll(async () => {
    pki = await testPki();
    await pki.ca("ca", "jobsight-ca");
    await pki.issue("tls", "jobsight.jobsight.svc", "ca", "DNS:jobsight.jobsight.svc");
    ca = await readFile(pki.file("ca.crt"));
    fx = await openTestStorage("k8s_recorded");
    const objects = kustomize(OVERLAY);
    hook = objects.find((o) => o.kind === "MutatingWebhookConfiguration")!.webhooks[0];
    const config = deployedServerConfig(objects, pki.dir);
    const tls = { ...config.tls!, certFile: pki.file("tls.crt"), keyFile: pki.file("tls.key") };
    ({ app, port } = await startWebhookServer(config, tls, fx, pki.file("objects")));
  });

  afterAll(async () => {
    await app?.close();
    await fx?.dispose();
    await pki?.dispose();
  });

  it("resizes a Pod made by kubectl create: the sidecar, volumes and defaults untouched, the limit kept equal", async () => {
    const review = await recorded("pod-kubectl-create");
    expect(selects(hook, review.request)).toBe(true);
    const { response, object } = await admit(review);
    expect(response.warnings?.[0]).toMatch(/^jobsight resized/);
    new Pod(stored(object) as never).validate();
    const [main, sidecar] = object.spec.containers;
    expect(bytes(main.resources.requests.memory)).toBe(6 * GiB - 64 * 2 ** 20);
    expect(main.resources.limits.memory).toBe(main.resources.requests.memory);
    withinPolicy(object.spec.containers);
    expect(sidecar).toEqual(review.request.object.spec.containers[1]);
    const untouched = (o: Json) => {
      const c = structuredClone(o);
      delete c.metadata.annotations;
      for (const x of c.spec.containers) delete x.resources;
      return c;
    };
    expect(untouched(object)).toEqual(untouched(review.request.object));
    expect(JSON.parse(object.metadata.annotations["jobsight.io/changes"])).toMatchObject({ policy: "site" });
  });

  it("resizes a Job's pod template, and the Job's pods that carry the annotation are left alone", async () => {
    const job = await recorded("job-kubectl-apply");
    expect(selects(hook, job.request)).toBe(true);
    const { object } = await admit(job);
    new Job(stored(object) as never).validate();
    const template = object.spec.template;
    expect(bytes(template.spec.containers[0].resources.requests.memory)).toBe(6 * GiB);
    withinPolicy(template.spec.containers);
    expect(template.metadata.annotations["jobsight.io/changes"]).toBeDefined();
    // The last-applied annotation is kubectl's record of the manifest, not of the patch.
    expect(object.metadata.annotations).toEqual(job.request.object.metadata.annotations);

    const pod = await recorded("pod-job-controller");
    expect(selects(hook, pod.request)).toBe(true);
    const fresh = await admit(pod);
    new Pod(stored(fresh.object) as never).validate();
    expect(bytes(fresh.object.spec.containers[0].resources.requests.memory)).toBe(6 * GiB);
    expect(fresh.object.metadata.generateName).toBe("etl-nightly-");
    expect(fresh.object.metadata.name).toBeUndefined();

    const inherited = structuredClone(pod);
    inherited.request.uid = "e04a6b8f-0000-4a15-b9e3-71d58c2f0a64";
    inherited.request.object.metadata.annotations = template.metadata.annotations;
    const again = await admit(inherited);
    expect(again.ops).toEqual([]);
  });

  it("leaves a Deployment to its pods: not selected, admitted unchanged if sent, its ReplicaSet's pod resized", async () => {
    const deployment = await recorded("deployment-kubectl-apply");
    expect(selects(hook, deployment.request)).toBe(false);
    const sent = await admit(deployment);
    expect(sent.ops).toEqual([]);
    new Deployment(stored(sent.object) as never).validate();

    const pod = await recorded("pod-replicaset-controller");
    expect(pod.request.object.metadata.name).toBeUndefined();
    expect(selects(hook, pod.request)).toBe(true);
    const { object, ops } = await admit(pod);
    expect(ops.every((op) => op.op === "add")).toBe(true);
    new Pod(stored(object) as never).validate();
    expect(bytes(object.spec.containers[0].resources.requests.memory)).toBe(6 * GiB);
    withinPolicy(object.spec.containers);
    expect(object.metadata.generateName).toBe("notebook-6b9d4c7f58-");
    expect(object.metadata.name).toBeUndefined();
  });

  it("resizes each container template of an Argo Workflow submitted with argo submit", async () => {
    const review = await recorded("workflow-argo-submit");
    expect(selects(hook, review.request)).toBe(true);
    const { object } = await admit(review);
    new Workflow(stored(object) as never).validate();
    const [dag, prep, fit] = object.spec.templates;
    expect(dag).toEqual(review.request.object.spec.templates[0]);
    expect(bytes(prep.script.resources.requests.memory)).toBe(6 * GiB);
    expect(bytes(fit.container.resources.limits.memory)).toBe(6 * GiB);
    withinPolicy([prep.script, fit.container]);
    expect(fit.metadata.labels).toEqual({ stage: "fit" });
    for (const t of [prep, fit]) expect(t.metadata.annotations["jobsight.io/changes"]).toBeDefined();
  });

  it("answers a server-side dry run the same way, and each review with its own uid", async () => {
    const review = await recorded("pod-kubectl-create");
    review.request.dryRun = true;
    review.request.options.dryRun = ["All"];
    const { response, object } = await admit(review);
    expect(response.uid).toBe(review.request.uid);
    expect(bytes(object.spec.containers[0].resources.requests.memory)).toBe(6 * GiB - 64 * 2 ** 20);
  });

  it("the checks themselves catch a patch the API server would refuse and a resource over the cap", () => {
    const pod = { spec: { containers: [{ name: "a" }] } };
    const bad: Operation[] = [
      { op: "add", path: "/spec/containers/0/resources/requests/memory", value: "1Gi" },
    ];
    expect(() => applyPatch(pod, bad, true, false)).toThrow(/OPERATION_PATH_UNRESOLVABLE|Cannot perform/);
    expect(() =>
      withinPolicy([{ name: "a", resources: { requests: { memory: `${13 * 1024}Mi` } } }]),
    ).toThrow();
    expect(bytes("12Gi")).toBe(12 * GiB);
  });
});
