// AdmissionReview requests as the API server sends them (admission.k8s.io/v1, the format of the
// Kubernetes API reference), around the objects the tests admit.

/** A manifest as plain JSON; tests walk into it freely. */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are walked into by the tests
export type Json = Record<string, any>;

const RESOURCES: Record<string, { group: string; version: string; resource: string }> = {
  Pod: { group: "", version: "v1", resource: "pods" },
  Job: { group: "batch", version: "v1", resource: "jobs" },
  CronJob: { group: "batch", version: "v1", resource: "cronjobs" },
  Workflow: { group: "argoproj.io", version: "v1alpha1", resource: "workflows" },
};

/** An AdmissionReview request for creating `object` in `namespace`. */
export function admissionReview(
  object: Json,
  options: { namespace?: string; uid?: string; operation?: string; dryRun?: boolean; username?: string } = {},
): Json {
  const kind = String(object.kind);
  const r = RESOURCES[kind] ?? { group: "example.com", version: "v1", resource: `${kind.toLowerCase()}s` };
  const gvk = { group: r.group, version: r.version, kind };
  const metadata = (object.metadata ?? {}) as Json;
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: options.uid ?? "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: gvk,
      resource: r,
      requestKind: gvk,
      requestResource: r,
      name: typeof metadata.name === "string" ? metadata.name : "",
      namespace: options.namespace ?? "ml",
      operation: options.operation ?? "CREATE",
      userInfo: {
        username: options.username ?? "alice@example.org",
        uid: "014fbff9a07c",
        groups: ["system:authenticated", "ml-team"],
      },
      object,
      oldObject: null,
      dryRun: options.dryRun ?? false,
      options: { apiVersion: "meta.k8s.io/v1", kind: "CreateOptions" },
    },
  };
}

/** A training pod with a log-shipping sidecar and an init container. */
export function trainingPod(): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "train-7f9c",
      namespace: "ml",
      labels: { app: "train", "kueue.x-k8s.io/queue-name": "gpu-queue" },
    },
    spec: {
      initContainers: [
        {
          name: "fetch-data",
          image: "busybox:1.36",
          command: ["sh", "-c", "cp /src/* /data"],
          resources: { requests: { memory: "64Mi", cpu: "100m" } },
        },
      ],
      containers: [
        {
          name: "trainer",
          image: "registry.example.org/ml/train:2.1",
          args: ["--epochs", "10"],
          resources: {
            requests: { memory: "16Gi", cpu: "4" },
            limits: { memory: "24Gi", "nvidia.com/gpu": "2" },
          },
        },
        {
          name: "log-shipper",
          image: "fluent/fluent-bit:3.0",
          resources: { requests: { memory: "128Mi", cpu: "100m" }, limits: { memory: "128Mi", cpu: "100m" } },
        },
      ],
      restartPolicy: "Never",
      priorityClassName: "batch-high",
      nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" },
    },
  };
}

/** A batch/v1 Job whose single container has no resources at all. */
export function bareJob(): Json {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "etl-nightly", namespace: "ml" },
    spec: {
      backoffLimit: 2,
      completionMode: "Indexed",
      completions: 8,
      parallelism: 4,
      template: {
        spec: {
          containers: [{ name: "etl", image: "registry.example.org/etl:5", command: ["python", "etl.py"] }],
          restartPolicy: "Never",
          activeDeadlineSeconds: 7200,
        },
      },
    },
  };
}

/** A batch/v1 CronJob with requests equal to limits (Guaranteed QoS). */
export function cronJob(): Json {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name: "report", namespace: "ml" },
    spec: {
      schedule: "0 3 * * *",
      jobTemplate: {
        spec: {
          template: {
            metadata: { labels: { app: "report" } },
            spec: {
              containers: [
                {
                  name: "report",
                  image: "registry.example.org/report:1",
                  resources: { requests: { memory: "8Gi", cpu: "2" }, limits: { memory: "8Gi", cpu: "2" } },
                },
              ],
              restartPolicy: "OnFailure",
            },
          },
        },
      },
    },
  };
}

/** An Argo Workflow with a DAG, a container template and a script template. */
export function argoWorkflow(): Json {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Workflow",
    metadata: { generateName: "pipeline-", namespace: "ml" },
    spec: {
      entrypoint: "main",
      templates: [
        {
          name: "main",
          dag: {
            tasks: [
              { name: "prep", template: "prep" },
              { name: "fit", template: "fit", dependencies: ["prep"] },
            ],
          },
        },
        {
          name: "prep",
          script: {
            image: "python:3.12",
            command: ["python"],
            source: "print('prep')",
            resources: { requests: { memory: "2Gi" } },
          },
        },
        {
          name: "fit",
          metadata: { labels: { stage: "fit" } },
          container: {
            image: "registry.example.org/fit:3",
            command: ["python", "fit.py"],
            resources: { limits: { memory: "32Gi", cpu: "8" } },
          },
        },
      ],
    },
  };
}

/** A pod the Argo workflow controller created: `init` and `wait` around the user's `main`. */
export function argoPod(): Json {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "pipeline-x7k2p-fit-2712345",
      namespace: "ml",
      labels: {
        "workflows.argoproj.io/workflow": "pipeline-x7k2p",
        "workflows.argoproj.io/completed": "false",
      },
      annotations: {
        "workflows.argoproj.io/node-name": "pipeline-x7k2p.fit",
        "workflows.argoproj.io/node-id": "pipeline-x7k2p-2712345",
      },
    },
    spec: {
      serviceAccountName: "argo-workflow",
      initContainers: [
        {
          name: "init",
          image: "quay.io/argoproj/argoexec:v3.5.5",
          resources: { requests: { cpu: "10m", memory: "64Mi" } },
        },
      ],
      containers: [
        {
          name: "wait",
          image: "quay.io/argoproj/argoexec:v3.5.5",
          resources: { requests: { cpu: "10m", memory: "64Mi" } },
        },
        {
          name: "main",
          image: "registry.example.org/fit:3",
          command: ["python", "fit.py"],
          resources: { limits: { memory: "32Gi", cpu: "8" } },
        },
      ],
      restartPolicy: "Never",
    },
  };
}
