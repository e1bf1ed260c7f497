import { describe, expect, it } from "vitest";
import { editManifest } from "./edit-manifest.js";
import { parseManifest } from "./parse-manifest.js";

const GiB = 2 ** 30;
const ctx = { cluster: "k8s1", user: "alice" };
const requested = (text: string, workload?: string) =>
  parseManifest(text, { ...ctx, workload }).spec.requested;

const pod = (resources: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: main\n      image: x\n${resources}`;

describe("editManifest", () => {
  it("replaces quantities in place, keeping quotes and comments, request = limit kept equal", () => {
    const text = pod(
      `      resources:\n        requests:\n          memory: "64Gi"   # v1 sizing\n          cpu: '8'\n        limits:\n          memory: "64Gi"\n`,
    );
    const { text: out, changes } = editManifest(text, { memory: 24 * GiB, cores: 4 });
    expect(out).toBe(
      pod(
        `      resources:\n        requests:\n          memory: "24Gi"   # v1 sizing\n          cpu: '4'\n        limits:\n          memory: "24Gi"\n`,
      ),
    );
    expect(changes).toEqual([
      {
        resource: "memory",
        before: '          memory: "64Gi"   # v1 sizing',
        after: '          memory: "24Gi"   # v1 sizing',
        line: 11,
      },
      { resource: "cores", before: "          cpu: '8'", after: "          cpu: '4'", line: 12 },
    ]);
  });

  it("moves the request of a burstable container and raises the limit only when it must", () => {
    const text = pod(`      resources:\n        requests: {memory: 8Gi}\n        limits: {memory: 16Gi}\n`);
    expect(editManifest(text, { memory: 12 * GiB }).text).toBe(
      pod(`      resources:\n        requests: {memory: 12Gi}\n        limits: {memory: 16Gi}\n`),
    );
    expect(editManifest(text, { memory: 20 * GiB }).text).toBe(
      pod(`      resources:\n        requests: {memory: 20Gi}\n        limits: {memory: 20Gi}\n`),
    );
  });

  it("adds a missing key to the existing map, in block or flow style", () => {
    const block = pod(`      resources:\n        requests:\n          memory: 1Gi\n`);
    expect(editManifest(block, { cores: 2 }).text).toBe(
      pod(`      resources:\n        requests:\n          memory: 1Gi\n          cpu: 2\n`),
    );
    const flow = pod(`      resources: { requests: { memory: 1Gi } }\n`);
    expect(editManifest(flow, { cores: 2, gpus: 1 }).text).toBe(
      pod(`      resources: { requests: { memory: 1Gi, cpu: 2 }, limits: {nvidia.com/gpu: 1} }\n`),
    );
  });

  it("creates resources where the container has none, at the manifest's indentation", () => {
    const four = `kind: Pod\nmetadata:\n    name: p\nspec:\n    containers:\n    -   name: main\n        image: x\n        args: ["a"]\n`;
    expect(editManifest(four, { memory: 2 * GiB, gpus: 1 }).text).toBe(
      `${four}        resources:\n            requests:\n                memory: 2Gi\n            limits:\n                nvidia.com/gpu: 1\n`,
    );
    expect(editManifest(pod("      resources: {}\n"), { cores: 1 }).text).toBe(
      pod("      resources: {requests: {cpu: 1}}\n"),
    );
    expect(editManifest(pod("      resources:\n      env: []\n"), { cores: 1 }).text).toBe(
      pod("      resources:\n        requests:\n          cpu: 1\n      env: []\n"),
    );
  });

  it("adds to requests and creates limits at the same place in the right order", () => {
    const text = pod(`      resources:\n        requests:\n          memory: 512Mi\n      args: []\n`);
    const out = editManifest(text, { cores: 1, gpus: 1 }).text;
    expect(out).toBe(
      pod(
        `      resources:\n        requests:\n          memory: 512Mi\n          cpu: 1\n        limits:\n          nvidia.com/gpu: 1\n      args: []\n`,
      ),
    );
  });

  it("writes GPUs to limits, and to requests too when they are there", () => {
    const text = pod(
      `      resources:\n        requests: {nvidia.com/gpu: 4}\n        limits: {nvidia.com/gpu: 4}\n`,
    );
    const out = editManifest(text, { gpus: 1 }).text;
    expect(out).toBe(
      pod(`      resources:\n        requests: {nvidia.com/gpu: 1}\n        limits: {nvidia.com/gpu: 1}\n`),
    );
    expect(requested(out).gpus).toBe(1);
  });

  it("sizes the main container for the whole pod, after what the sidecars ask", () => {
    const text = `kind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n      containers:\n      - name: main\n        image: x\n        resources: {requests: {cpu: 8}}\n      - name: proxy\n        image: y\n        resources: {requests: {cpu: 250m}}\n`;
    const out = editManifest(text, { cores: 4 }).text;
    expect(out).toContain("resources: {requests: {cpu: 3750m}}");
    expect(requested(out).cores).toBe(4);
    const proxy = editManifest(text, { cores: 10 }, { container: "proxy" }).text;
    expect(proxy).toContain("resources: {requests: {cpu: 8}}");
    // The proxy's request was in millicores: it stays in millicores.
    expect(proxy).toContain("resources: {requests: {cpu: 2000m}}");
    expect(requested(proxy).cores).toBe(10);
    const tooSmall = editManifest(text, { cores: 2 }, { container: "proxy" });
    expect(tooSmall.text).toBe(text);
    expect(tooSmall.skipped[0]).toMatchObject({ resource: "cores" });
  });

  it("edits activeDeadlineSeconds when set, and does not invent one", () => {
    const job = `kind: Job\nmetadata: {name: j}\nspec:\n  activeDeadlineSeconds: 86400\n  template:\n    spec:\n      containers: [{name: c, image: x}]\n`;
    const { text, skipped } = editManifest(job, { walltime: 7200.4 });
    expect(text).toContain("activeDeadlineSeconds: 7201\n");
    expect(skipped).toEqual([]);
    const without = editManifest(pod("      resources: {}\n"), { walltime: 7200 });
    expect(without.text).toBe(pod("      resources: {}\n"));
    expect(without.skipped[0]).toMatchObject({ resource: "walltime" });
  });

  it("keeps CRLF, a missing final newline, and the other documents", () => {
    const text =
      "kind: ConfigMap\r\nmetadata: {name: c}\r\n---\r\nkind: Pod\r\nmetadata: {name: p}\r\nspec:\r\n  containers:\r\n  - name: a\r\n    image: x";
    const out = editManifest(text, { memory: GiB }).text;
    expect(out).toBe(`${text}\r\n    resources:\r\n      requests:\r\n        memory: 1Gi`);
    expect(requested(out).memoryBytes).toBe(GiB);
  });

  it("keeps a JSON manifest JSON, and a number of bytes a number of bytes", () => {
    const text = `{\n  "kind": "Pod",\n  "metadata": {"name": "p"},\n  "spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"memory": 1073741824}}}]}\n}\n`;
    const out = editManifest(text, { memory: 2 * GiB, cores: 2 }).text;
    expect(JSON.parse(out).spec.containers[0].resources).toEqual({
      limits: { memory: 2 * GiB },
      requests: { cpu: "2" },
    });
  });

  it("edits only the Argo template asked for", () => {
    const text = `kind: WorkflowTemplate\nmetadata: {name: t}\nspec:\n  templates:\n  - name: a\n    container: {image: x, resources: {requests: {memory: 1Gi}}}\n  - name: b\n    container: {image: y, resources: {requests: {memory: 1Gi}}}\n`;
    const out = editManifest(text, { memory: 4 * GiB }, { workload: "b" }).text;
    expect(requested(out, "a").memoryBytes).toBe(GiB);
    expect(requested(out, "b").memoryBytes).toBe(4 * GiB);
  });
});
