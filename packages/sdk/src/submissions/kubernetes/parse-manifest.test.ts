import { validateJobSpec } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { parseManifest } from "./parse-manifest.js";

const ctx = { cluster: "k8s1", user: "alice" };
const GiB = 2 ** 30;

const podSpec = (indent: string) =>
  [
    "nodeSelector:",
    "  nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB",
    "priorityClassName: high",
    "containers:",
    "  - name: main",
    "    image: ghcr.io/lab/train:1.2",
    "    resources:",
    "      requests: {cpu: 3500m, memory: 30Gi}",
    "      limits:",
    "        memory: 32Gi",
    '        nvidia.com/gpu: "2"',
    "  - name: sidecar",
    "    image: busybox",
    "    resources:",
    "      limits: {cpu: 500m, memory: 2Gi}",
  ]
    .map((l) => indent + l)
    .join("\n");

describe("parseManifest", () => {
  it("reads a Pod: requests before limits, summed over containers", () => {
    const text = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\n  namespace: ml\n  labels:\n    kueue.x-k8s.io/queue-name: gpu-queue\nspec:\n  activeDeadlineSeconds: 7200\n${podSpec("  ")}\n`;
    const { spec, warnings, workload } = parseManifest(text, ctx);
    expect(warnings).toEqual([]);
    expect(workload).toBe("Pod/train");
    expect(validateJobSpec(spec).ok).toBe(true);
    expect(spec).toEqual({
      cluster: "k8s1",
      scheduler: "kubernetes",
      user: "alice",
      account: "ml",
      partition: "gpu-queue",
      qos: "high",
      jobName: "train",
      executable: "ghcr.io/lab/train:1.2",
      requested: {
        memoryBytes: 32 * GiB,
        cores: 4,
        gpus: 2,
        gpuModel: "NVIDIA-A100-SXM4-80GB",
        walltimeSeconds: 7200,
      },
    });
  });

  it.each([
    ["Job", "batch/v1", "spec:\n  activeDeadlineSeconds: 600\n  template:\n    spec:\n", "      "],
    [
      "CronJob",
      "batch/v1",
      "spec:\n  schedule: '@daily'\n  jobTemplate:\n    spec:\n      activeDeadlineSeconds: 600\n      template:\n        spec:\n",
      "          ",
    ],
    ["Deployment", "apps/v1", "spec:\n  replicas: 2\n  template:\n    spec:\n", "      "],
    ["StatefulSet", "apps/v1", "spec:\n  template:\n    spec:\n", "      "],
  ])("finds the pod template of a %s", (kind, apiVersion, head, indent) => {
    const text = `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: w\n${head}${podSpec(indent)}\n`;
    const { spec, workload } = parseManifest(text, ctx);
    expect(workload).toBe(`${kind}/w`);
    expect(spec.requested.memoryBytes).toBe(32 * GiB);
    expect(spec.requested.gpus).toBe(2);
    expect(spec.requested.walltimeSeconds).toBe(kind === "Job" || kind === "CronJob" ? 600 : undefined);
  });

  it("keeps fractions of a core, to the millicore", () => {
    const text = `kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: x, resources: {requests: {cpu: 250m}}}\n  - {name: b, image: y, resources: {limits: {cpu: "0.1"}}}\n`;
    expect(parseManifest(text, ctx).spec.requested.cores).toBe(0.35);
  });

  it("reads an Indexed Job as an array", () => {
    const text = `kind: Job\nmetadata:\n  name: sweep\nspec:\n  completionMode: Indexed\n  completions: 20\n  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n`;
    expect(parseManifest(text, ctx).spec.array).toEqual({ arrayJobId: "sweep", taskCount: 20 });
  });

  it("picks the Argo entrypoint's template, or the one asked for", () => {
    const text = [
      "apiVersion: argoproj.io/v1alpha1",
      "kind: Workflow",
      "metadata:",
      "  generateName: train-",
      "spec:",
      "  entrypoint: main",
      "  templates:",
      "  - name: pipeline",
      "    steps: [[{name: a, template: prep}]]",
      "  - name: prep",
      "    script:",
      "      image: python:3.12",
      "      source: print(1)",
      "      resources: {requests: {memory: 1Gi}}",
      "  - name: main",
      "    activeDeadlineSeconds: 3600",
      "    container:",
      "      image: ghcr.io/lab/train:2",
      "      resources:",
      "        requests:",
      "          memory: 16Gi",
      "          cpu: 4",
    ].join("\n");
    const main = parseManifest(text, ctx);
    expect(main.workload).toBe("Workflow/train-#main");
    expect(main.spec.jobName).toBe("train-/main");
    expect(main.spec.requested).toEqual({ memoryBytes: 16 * GiB, cores: 4, walltimeSeconds: 3600 });
    expect(parseManifest(text, { ...ctx, workload: "prep" }).spec.requested).toEqual({ memoryBytes: GiB });
    expect(() => parseManifest(text, { ...ctx, workload: "pipeline" })).toThrow(/no workload named pipeline/);
  });

  it("reads CronWorkflow templates and multi-document files", () => {
    const text = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata: {name: cfg}",
      "---",
      "kind: CronWorkflow",
      "metadata: {name: nightly}",
      "spec:",
      "  workflowSpec:",
      "    entrypoint: run",
      "    templates:",
      "    - name: run",
      "      containerSet:",
      "        containers:",
      "        - {name: a, image: x, resources: {requests: {memory: 1Gi}}}",
      "        - {name: b, image: y, resources: {requests: {memory: 3Gi}}}",
    ].join("\r\n");
    const { spec, workload } = parseManifest(text, ctx);
    expect(workload).toBe("CronWorkflow/nightly#run");
    expect(spec.requested.memoryBytes).toBe(4 * GiB);
  });

  it("reads JSON manifests and Lists", () => {
    const json = JSON.stringify({
      apiVersion: "v1",
      kind: "List",
      items: [
        {
          kind: "Pod",
          metadata: { name: "p" },
          spec: {
            containers: [{ name: "c", image: "i", resources: { limits: { memory: 1073741824, cpu: 2 } } }],
          },
        },
      ],
    });
    expect(parseManifest(json, ctx).spec.requested).toEqual({ memoryBytes: GiB, cores: 2 });
  });

  it("warns about templated values instead of guessing", () => {
    const text = `kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        memory: "{{inputs.parameters.mem}}"\n        cpu: 1\n`;
    const { spec, warnings } = parseManifest(text, ctx);
    expect(spec.requested).toEqual({ cores: 1 });
    expect(warnings[0]).toMatch(/memory: \{\{inputs.parameters.mem\}\} is not a Kubernetes quantity/);
  });

  it("refuses what is not a manifest with a workload", () => {
    expect(() => parseManifest("kind: Service\nmetadata: {name: s}\n", ctx)).toThrow(/no Pod, Job/);
    expect(() => parseManifest("a: [", ctx)).toThrow(/not valid YAML/);
  });
});
