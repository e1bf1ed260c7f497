import type { ResourcePrediction } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import {
  argoPod,
  argoWorkflow,
  bareJob,
  cronJob,
  trainingPod,
} from "./kubernetes/test-support/admission-fixtures.js";
import { changesOf, GiB, MiB, rec, review, setup } from "./kubernetes/test-support/admission-harness.js";

describe("KubernetesAdmission with pods", () => {
  it("resizes the main container of a pod with several containers and leaves sidecar and init container alone", async () => {
    const { admission, specs, audit } = setup([rec("memory", 10 * GiB), rec("cores", 2.5), rec("gpus", 2)]);
    const pod = trainingPod();
    const { result, body, ops, patched } = await review(admission, pod);
    expect(result).toMatchObject({ statusCode: 200, outcome: "patched" });
    expect(body).toMatchObject({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true, patchType: "JSONPatch" },
    });
    expect(specs[0]).toEqual({
      cluster: "k8s1",
      scheduler: "kubernetes",
      user: "alice@example.org",
      account: "ml",
      partition: "gpu-queue",
      qos: "batch-high",
      jobName: "train-7f9c",
      executable: "registry.example.org/ml/train:2.1",
      requested: {
        memoryBytes: 16 * GiB + 128 * MiB,
        cores: 4.1,
        gpus: 2,
        gpuModel: "NVIDIA-A100-SXM4-80GB",
      },
    });
    // The pod should hold 10 GiB and 2.5 cores; the sidecar keeps its 128 MiB and 100m.
    expect(patched.spec.containers[0].resources).toEqual({
      requests: { memory: `${10 * 1024 - 128}Mi`, cpu: "2400m" },
      limits: { memory: "24Gi", "nvidia.com/gpu": "2" },
    });
    expect(patched.spec.containers[1]).toEqual(pod.spec.containers[1]);
    expect(patched.spec.initContainers).toEqual(pod.spec.initContainers);
    expect(ops.map((o) => o.path)).toEqual([
      "/spec/containers/0/resources/requests/memory",
      "/spec/containers/0/resources/requests/cpu",
      "/metadata/annotations",
    ]);
    expect(changesOf(patched.metadata)).toEqual({
      modelVersion: "m-12",
      policy: "default",
      changes: [
        { container: "trainer", resource: "memory", before: "16Gi", after: "10112Mi", rules: [] },
        { container: "trainer", resource: "cores", before: "4", after: "2400m", rules: [] },
      ],
    });
    expect(body.response.warnings?.[0]).toContain("trainer memory 16Gi→10112Mi");
    expect(audit.map((r) => [r.resource, r.before, r.after, r.mode, r.actor])).toEqual([
      ["memory", 16 * GiB + 128 * MiB, 10 * GiB, "live", "kubernetes-admission"],
      ["cores", 4.1, 2.5, "live", "kubernetes-admission"],
    ]);
    expect(audit[0]).toMatchObject({
      job: "Pod ml/train-7f9c container=trainer",
      modelVersion: "m-12",
      predictionId: "p-1",
      cluster: "k8s1",
    });
  });

  it("gives init containers the main container's values when configured", async () => {
    const { admission } = setup([rec("memory", 4 * GiB)], { initContainers: "match-main" });
    const { patched } = await review(admission, trainingPod());
    expect(patched.spec.initContainers[0].resources.requests).toEqual({
      memory: `${4 * 1024 - 128}Mi`,
      cpu: "100m",
    });
  });

  it("sets GPUs in limits with the JSON pointer escaped, and never lowers them when the policy says so", async () => {
    const lower = setup([rec("gpus", 1)]);
    const { ops, patched } = await review(lower.admission, trainingPod());
    expect(ops[0]).toEqual({
      op: "add",
      path: "/spec/containers/0/resources/limits/nvidia.com~1gpu",
      value: "1",
    });
    expect(patched.spec.containers[0].resources.limits["nvidia.com/gpu"]).toBe("1");
    expect(patched.spec.containers[0].resources.requests["nvidia.com/gpu"]).toBeUndefined();
    const keep = setup([rec("gpus", 1)], { policy: { name: "p", neverLower: ["gpus"] } });
    const kept = await review(keep.admission, trainingPod());
    expect(kept.result.outcome).toBe("unchanged");
    expect(kept.ops).toEqual([]);
  });

  it("raises an existing limit with the request so that the limit stays at least the request", async () => {
    const { admission } = setup([rec("memory", 30 * GiB)]);
    const { patched } = await review(admission, trainingPod());
    const target = `${30 * 1024 - 128}Mi`;
    expect(patched.spec.containers[0].resources.requests.memory).toBe(target);
    expect(patched.spec.containers[0].resources.limits.memory).toBe(target);
  });

  it("keeps the request below minConfidence and applies caps", async () => {
    const unsure = setup([rec("memory", 2 * GiB, 0.5)], { policy: { name: "p", minConfidence: 0.9 } });
    expect((await review(unsure.admission, trainingPod())).result.outcome).toBe("unchanged");
    const capped = setup([rec("memory", 100 * GiB)], { policy: { name: "p", caps: { memory: 20 * GiB } } });
    const { patched } = await review(capped.admission, trainingPod());
    expect(patched.spec.containers[0].resources.requests.memory).toBe(`${20 * 1024 - 128}Mi`);
    expect(changesOf(patched.metadata).changes[0].rules).toEqual(["cap"]);
  });

  it("selects Argo's main container, not the wait sidecar, in a workflow pod", async () => {
    const { admission, specs } = setup([rec("memory", 12 * GiB)]);
    const result = await review(admission, argoPod(), {
      username: "system:serviceaccount:argo:argo-workflow-controller",
    });
    expect(result.patched.spec.containers[0]).toEqual(argoPod().spec.containers[0]);
    expect(result.patched.spec.containers[1].resources).toEqual({
      limits: { memory: `${12 * 1024 - 64}Mi`, cpu: "8" },
    });
    expect(specs.at(-1)).toMatchObject({
      user: "system:serviceaccount:ml:argo-workflow",
      jobName: "pipeline-x7k2p/pipeline-x7k2p.fit",
    });
  });

  it("adds memory and cpu requests to a container that has no resources at all", async () => {
    const { admission } = setup([rec("memory", 3 * GiB), rec("cores", 1.5)]);
    const pod = trainingPod();
    pod.spec = { containers: [{ name: "app", image: "app:1" }] };
    const { ops, patched } = await review(admission, pod);
    expect(ops[0]).toEqual({
      op: "add",
      path: "/spec/containers/0/resources",
      value: { requests: { memory: "3Gi", cpu: "1500m" } },
    });
    expect(patched.spec.containers[0].resources).toEqual({ requests: { memory: "3Gi", cpu: "1500m" } });
  });

  it("leaves a resource alone when a quantity cannot be read", async () => {
    const { admission } = setup([rec("memory", 3 * GiB), rec("cores", 1)]);
    const pod = trainingPod();
    pod.spec.containers[1].resources.requests.memory = "{{inputs.parameters.mem}}";
    const { patched } = await review(admission, pod);
    expect(patched.spec.containers[0].resources.requests).toEqual({ memory: "16Gi", cpu: "900m" });
  });
});

describe("KubernetesAdmission with Jobs, CronJobs and Argo Workflows", () => {
  it("patches the pod template of a Job and annotates the template so its pods are not resized again", async () => {
    const { admission, specs } = setup([rec("memory", 1.2 * GiB), rec("cores", 0.75), rec("walltime", 600)]);
    const { ops, patched } = await review(admission, bareJob());
    expect(specs[0]).toMatchObject({
      jobName: "etl-nightly",
      account: "ml",
      executable: "registry.example.org/etl:5",
      requested: { walltimeSeconds: 7200 },
      array: { arrayJobId: "etl-nightly", taskCount: 8 },
    });
    expect(ops.map((o) => o.path)).toEqual([
      "/spec/template/spec/containers/0/resources",
      "/spec/template/metadata",
    ]);
    expect(patched.spec.template.spec.containers[0].resources).toEqual({
      requests: { memory: "1229Mi", cpu: "750m" },
    });
    expect(changesOf(patched.spec.template.metadata).changes).toHaveLength(2);
    expect(patched.spec.template.spec.activeDeadlineSeconds).toBe(7200);

    // A pod the Job controller then creates carries the annotation: admitted as it is.
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        generateName: "etl-nightly-",
        labels: { "job-name": "etl-nightly" },
        annotations: patched.spec.template.metadata.annotations,
      },
      spec: patched.spec.template.spec,
    };
    const again = await review(admission, pod, {
      username: "system:serviceaccount:kube-system:job-controller",
    });
    expect(again.result.outcome).toBe("already_applied");
    expect(specs).toHaveLength(1);
  });

  it("keeps requests equal to limits in a CronJob's template (Guaranteed QoS)", async () => {
    const { admission } = setup([rec("memory", 5 * GiB), rec("cores", 1)]);
    const { ops, patched } = await review(admission, cronJob());
    const c = patched.spec.jobTemplate.spec.template.spec.containers[0];
    expect(c.resources).toEqual({
      requests: { memory: "5Gi", cpu: "1" },
      limits: { memory: "5Gi", cpu: "1" },
    });
    expect(ops.at(-1)?.path).toBe("/spec/jobTemplate/spec/template/metadata/annotations");
    expect(patched.spec.jobTemplate.spec.template.metadata.labels).toEqual({ app: "report" });
  });

  it("predicts and patches every container template of an Argo Workflow on its own", async () => {
    const byTemplate: Record<string, ResourcePrediction[]> = {
      "pipeline-/prep": [rec("memory", 512 * MiB)],
      "pipeline-/fit": [rec("memory", 20 * GiB), rec("cores", 6)],
    };
    const { admission, specs } = setup((spec) => byTemplate[spec.jobName!] ?? []);
    const { patched } = await review(admission, argoWorkflow());
    expect(specs.map((s) => s.jobName)).toEqual(["pipeline-/prep", "pipeline-/fit"]);
    const [, prep, fit] = patched.spec.templates;
    expect(prep.script.resources).toEqual({ requests: { memory: "512Mi" } });
    expect(fit.container.resources).toEqual({ limits: { memory: "20Gi", cpu: "6" } });
    expect(changesOf(prep.metadata).changes[0]).toMatchObject({
      container: "main",
      resource: "memory",
      before: "2Gi",
      after: "512Mi",
    });
    expect(fit.metadata.labels).toEqual({ stage: "fit" });
    expect(changesOf(fit.metadata).changes).toHaveLength(2);
    expect(patched.spec.templates[0]).toEqual(argoWorkflow().spec.templates[0]);
  });
});
