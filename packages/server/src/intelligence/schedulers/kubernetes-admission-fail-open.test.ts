import { describe, expect, it } from "vitest";
import type { AdmissionReviewResponse } from "./kubernetes/admission-review.js";
import { admissionReview, trainingPod } from "./kubernetes/test-support/admission-fixtures.js";
import { GiB, rec, review, setup } from "./kubernetes/test-support/admission-harness.js";
import { KubernetesAdmission } from "./kubernetes-admission.js";

describe("KubernetesAdmission: when it does nothing", () => {
  it("admits pods of an excluded namespace, or outside the included ones, without asking", async () => {
    const excluded = setup([rec("memory", GiB)], {
      policy: { name: "p", namespaces: { exclude: ["kube-system", "ml"] } },
    });
    expect((await review(excluded.admission, trainingPod())).result.outcome).toBe("namespace_excluded");
    const included = setup([rec("memory", GiB)], {
      policy: { name: "p", namespaces: { include: ["research"] } },
    });
    const r = await review(included.admission, trainingPod());
    expect(r.result.outcome).toBe("namespace_excluded");
    expect(r.body.response).toEqual({ uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true });
    expect([...excluded.specs, ...included.specs]).toEqual([]);
  });

  it("admits a pod labelled out unchanged", async () => {
    const { admission, specs } = setup([rec("memory", GiB)], {
      policy: { name: "p", optOutLabel: "jobsight.io/resize" },
    });
    const pod = trainingPod();
    pod.metadata.labels["jobsight.io/resize"] = "false";
    expect((await review(admission, pod)).result.outcome).toBe("opted_out");
    expect(specs).toEqual([]);
  });

  it("only records in shadow mode: no patch, audit records marked shadow", async () => {
    const { admission, audit } = setup([rec("memory", 4 * GiB)], { mode: "shadow" });
    const { result, body } = await review(admission, trainingPod());
    expect(result.outcome).toBe("shadow");
    expect(body.response.patch).toBeUndefined();
    expect(audit.map((r) => [r.mode, r.after])).toEqual([["shadow", 4 * GiB]]);
    expect(admission.stats()).toEqual({ shadow: 1 });
  });

  it("stays unchanged when the deployment's predictions are in shadow mode", async () => {
    const admission = new KubernetesAdmission({
      cluster: "k8s1",
      policy: { name: "p" },
      predict: async () => ({ modelVersion: "m", mode: "shadow", resources: [] }),
    });
    expect((await review(admission, trainingPod())).result.outcome).toBe("unchanged");
  });

  it("patches a dry run but records nothing", async () => {
    const { admission, audit } = setup([rec("memory", 4 * GiB)]);
    expect((await review(admission, trainingPod(), { dryRun: true })).result.outcome).toBe("patched");
    expect(audit).toEqual([]);
  });

  it("leaves updates alone", async () => {
    const { admission, specs } = setup([rec("memory", GiB)]);
    expect((await review(admission, trainingPod(), { operation: "UPDATE" })).result.outcome).toBe(
      "not_create",
    );
    expect(specs).toEqual([]);
  });

  it("admits kinds it does not know", async () => {
    const { admission } = setup([rec("memory", GiB)]);
    const { result } = await review(admission, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      data: {},
    });
    expect(result.outcome).toBe("unsupported_kind");
  });
});

describe("KubernetesAdmission fails open", () => {
  it("admits unchanged when the predictor throws, with the reason logged and counted", async () => {
    const warnings: Record<string, unknown>[] = [];
    const admission = new KubernetesAdmission({
      cluster: "k8s1",
      policy: { name: "p" },
      predict: async () => {
        throw new Error("model store unreachable");
      },
      logger: { info: () => {}, warn: (o) => void warnings.push(o) },
    });
    const { result, body } = await review(admission, trainingPod());
    expect(result).toMatchObject({ statusCode: 200, outcome: "predictor_error" });
    expect(body.response).toEqual({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
      status: { code: 200, message: "jobsight: predictor_error; admitted unchanged" },
    });
    expect(warnings[0]).toMatchObject({ reason: "predictor_error", err: "Error: model store unreachable" });
    expect(admission.stats()).toEqual({ predictor_error: 1 });
  });

  it("admits unchanged when the predictor does not answer before the deadline, and aborts it", async () => {
    let aborted = false;
    const admission = new KubernetesAdmission({
      cluster: "k8s1",
      policy: { name: "p" },
      deadlineMs: 60,
      predict: (_spec, { signal }) =>
        new Promise(() => {
          signal.addEventListener("abort", () => {
            aborted = true;
          });
        }),
    });
    const started = performance.now();
    const { result, body } = await review(admission, trainingPod());
    const elapsed = performance.now() - started;
    expect(result.outcome).toBe("timeout");
    expect(body.response.patch).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(55);
    expect(elapsed).toBeLessThan(1000);
    expect(aborted).toBe(true);
  });

  it("gives up sooner when the API server's ?timeout= leaves less than the deadline", async () => {
    const admission = new KubernetesAdmission({
      cluster: "k8s1",
      policy: { name: "p" },
      deadlineMs: 10_000,
      predict: () => new Promise(() => {}),
    });
    const started = performance.now();
    const result = await admission.review(admissionReview(trainingPod()), undefined, { deadlineMs: 100 });
    expect(result.outcome).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("patches even when the audit store fails, and counts the failure", async () => {
    const admission = new KubernetesAdmission({
      cluster: "k8s1",
      policy: { name: "p" },
      predict: async () => ({ modelVersion: "m", resources: [rec("memory", 2 * GiB)] }),
      audit: { record: async () => Promise.reject(new Error("database down")) },
    });
    expect((await review(admission, trainingPod())).result.outcome).toBe("patched");
    await new Promise((r) => setTimeout(r, 0));
    expect(admission.stats()).toEqual({ patched: 1, audit_failed: 1 });
  });

  it("admits malformed reviews with a status message and echoes the uid it has", async () => {
    const { admission } = setup([rec("memory", GiB)]);
    const cases: [unknown, string, string][] = [
      [{ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }, "", "has no request"],
      [
        {
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          request: { kind: { group: "", version: "v1", kind: "Pod" } },
        },
        "",
        "request.uid is missing",
      ],
      [
        {
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          request: { uid: "u-1", kind: "Pod", operation: "CREATE", object: {} },
        },
        "u-1",
        "GroupVersionKind",
      ],
      [
        {
          apiVersion: "admission.k8s.io/v1",
          kind: "AdmissionReview",
          request: {
            uid: "u-2",
            kind: { group: "", version: "v1", kind: "Pod" },
            operation: "CREATE",
            object: "pod",
          },
        },
        "u-2",
        "request.object",
      ],
    ];
    for (const [body, uid, message] of cases) {
      const result = await admission.review(body);
      expect(result.statusCode).toBe(200);
      const response = (result.body as AdmissionReviewResponse).response;
      expect(response).toMatchObject({ uid, allowed: true });
      expect(response.status?.message).toContain(message);
      expect(response.patch).toBeUndefined();
    }
    expect(admission.stats()).toEqual({ malformed_review: 4 });
  });

  it("answers 400 only to a body that is not an AdmissionReview at all", async () => {
    const { admission } = setup([rec("memory", GiB)]);
    for (const body of [trainingPod(), [1, 2], "text", null, { apiVersion: "v1", kind: "AdmissionReview" }]) {
      const result = await admission.review(body);
      expect(result.statusCode).toBe(400);
      expect(result.body).toMatchObject({ code: "VALIDATION_FAILED", statusCode: 400 });
    }
  });
});
