import fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { admissionReview, trainingPod } from "./kubernetes/test-support/admission-fixtures.js";
import { KubernetesAdmission } from "./kubernetes-admission.js";
import { admissionRoute } from "./test-support/scheduler-routes.js";

const GiB = 2 ** 30;

describe("POST /v1/admission/mutate", () => {
  const app = fastify();
  afterEach(async () => {
    await app.close();
  });

  it("answers an AdmissionReview with a JSONPatch, a 400 to anything else", async () => {
    const admission = new KubernetesAdmission({
      cluster: "k8s1",
      policy: { name: "p" },
      predict: async () => ({
        modelVersion: "m-1",
        resources: [
          {
            resource: "memory",
            status: "ok",
            unit: "bytes",
            value: 6 * GiB,
            confidence: 0.96,
            evidence: { group: "g", jobs: 20 },
          },
        ],
      }),
    });
    await app.register(admissionRoute, { admission });

    const ok = await app.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      payload: admissionReview(trainingPod(), { uid: "abc-123" }),
    });
    expect(ok.statusCode).toBe(200);
    const body = ok.json();
    expect(body).toMatchObject({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "abc-123", allowed: true, patchType: "JSONPatch" },
    });
    const patch = JSON.parse(Buffer.from(body.response.patch, "base64").toString("utf8"));
    expect(patch[0]).toEqual({
      op: "add",
      path: "/spec/containers/0/resources/requests/memory",
      value: `${6 * 1024 - 128}Mi`,
    });

    const notReview = await app.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      payload: trainingPod(),
    });
    expect(notReview.statusCode).toBe(400);
    expect(notReview.json()).toMatchObject({ code: "VALIDATION_FAILED" });

    const notJson = await app.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(notJson.statusCode).toBe(400);

    const malformed = await app.inject({
      method: "POST",
      url: "/v1/admission/mutate",
      payload: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u" } },
    });
    expect(malformed.statusCode).toBe(200);
    expect(malformed.json().response).toMatchObject({ uid: "u", allowed: true });
    expect(admission.stats()).toEqual({ patched: 1, not_a_review: 1, malformed_review: 1 });
  });
});
