import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "../../../packages/schemas/src/index.js";
import { collectorContainerProblems, serverContainerConfig } from "./cli-references.js";
import { createdByGuide, crossReferenceProblems, podTemplates } from "./cross-references.js";
import { kubectlKustomize, kustomize, type Manifest, yamlDocuments } from "./kustomize.js";
import { schemaProblems, UNMODELLED } from "./openapi-schemas.js";

// What a cluster would refuse, found without one: every manifest of the Kubernetes examples
// against the Kubernetes (and cert-manager, Argo) OpenAPI schemas, every name one object gives
// another, and every command, flag and variable against the programs' own option tables.

const EXAMPLES = join(import.meta.dirname, "..", "..");
const KUBERNETES = join(EXAMPLES, "kubernetes");
const README = readFileSync(join(KUBERNETES, "README.md"), "utf8");
const external = createdByGuide(README);
const OVERLAYS = ["embedded-database", "external-database"];

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "test" ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(name) && name !== "kustomization.yaml" ? [path] : [];
  });
}

const FILES = [KUBERNETES, join(EXAMPLES, "deploy", "kubernetes-collector"), join(EXAMPLES, "argo")].flatMap(
  yamlFiles,
);
const built = (overlay: string) => kustomize(join(KUBERNETES, "overlays", overlay));
const containers = (objects: Manifest[], name: string) =>
  podTemplates(objects)
    .flatMap((t) => t.pod.spec.containers as Manifest[])
    .filter((c) => c.name === name && t(c));
const t = (_: Manifest) => true;

describe("the Kubernetes manifests", () => {
  it("are all found", () => {
    expect(FILES.map((f) => relative(EXAMPLES, f)).sort()).toEqual(
      expect.arrayContaining([
        "argo/events/event-source.yaml",
        "argo/events/sensor.yaml",
        "argo/workflow-template.yaml",
        "deploy/kubernetes-collector/collector-daemonset.yaml",
        "kubernetes/base/mutating-webhook.yaml",
        "kubernetes/base/server-deployment.yaml",
      ]),
    );
  });

  it.each(FILES.map((f) => [relative(EXAMPLES, f), f]))(
    "%s: every document matches its OpenAPI schema",
    async (_, file) => {
      const problems: string[] = [];
      for (const doc of yamlDocuments(file)) {
        if (UNMODELLED.has(`${doc.apiVersion} ${doc.kind}`)) continue;
        problems.push(...(await schemaProblems(doc)));
      }
      expect(problems).toEqual([]);
    },
  );

  describe.each(OVERLAYS)("overlay %s", (overlay) => {
    it("builds, and every object it builds matches its schema", async () => {
      const objects = built(overlay);
      expect(objects.length).toBeGreaterThan(10);
      const problems = (await Promise.all(objects.map(schemaProblems))).flat();
      expect(problems).toEqual([]);
    });

    it.skipIf(kubectlKustomize(KUBERNETES + "/base") === undefined)(
      "builds the same objects as kubectl kustomize",
      () => {
        const key = (o: Manifest) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
        const ours = new Map(built(overlay).map((o) => [key(o), o]));
        const theirs = kubectlKustomize(join(KUBERNETES, "overlays", overlay))!;
        expect(theirs.map(key).sort()).toEqual([...ours.keys()].sort());
        for (const o of theirs) expect(ours.get(key(o))).toEqual(o);
      },
    );

    it("names only Services, Secrets, ConfigMaps, ports, accounts and issuers that exist", () => {
      expect(crossReferenceProblems(built(overlay), external)).toEqual([]);
    });

    it("starts jobsight-server with a real command, real flags and a configuration it accepts", () => {
      const [server] = containers(built(overlay), "server");
      const { config, problems } = serverContainerConfig(server);
      expect(problems).toEqual([]);
      expect(config!.http.port).toBe(server.ports.find((p: Manifest) => p.name === "https").containerPort);
      expect(config!.tls).toMatchObject({
        certFile: "/etc/jobsight/tls/tls.crt",
        keyFile: "/etc/jobsight/tls/tls.key",
      });
      // The API server sends no bearer token: the webhook must not need one.
      expect(config!.admission?.clientAuth).not.toBe("token");
      const mounts = server.volumeMounts.map((m: Manifest) => m.mountPath);
      if (server.securityContext.readOnlyRootFilesystem) expect(mounts).toContain(config!.dataDir);
    });

    it("starts every collector with flags and variables jobsight-collector accepts, for the webhook's cluster", () => {
      const objects = built(overlay);
      const collectors = containers(objects, "collector");
      expect(collectors.length).toBe(2);
      expect(collectors.flatMap(collectorContainerProblems)).toEqual([]);
      const { config } = serverContainerConfig(containers(objects, "server")[0]);
      for (const c of collectors) {
        const env = Object.fromEntries(c.env.map((e: Manifest) => [e.name, e.value]));
        expect(env.JOBSIGHT_CLUSTER).toBe(config!.admission?.cluster);
        const url = new URL(env.JOBSIGHT_URL);
        const [service, namespace] = url.hostname.split(".");
        const svc = objects.find(
          (o) => o.kind === "Service" && o.metadata.name === service && o.metadata.namespace === namespace,
        );
        expect(svc?.spec.ports.map((p: Manifest) => p.port)).toContain(Number(url.port || 443));
      }
    });
  });

  it("registers the webhook as the issue asks: fail open, quick, v1, no side effects, never on system namespaces", () => {
    const objects = built("embedded-database");
    const [config] = objects.filter((o) => o.kind === "MutatingWebhookConfiguration");
    const admission = apiRoutes.find((r) => r.operationId === "admitKubernetesObject")!;
    for (const hook of config.webhooks) {
      expect(hook).toMatchObject({
        failurePolicy: "Ignore",
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
      });
      expect(hook.timeoutSeconds).toBeLessThanOrEqual(5);
      expect(hook.clientConfig.service.path).toBe(admission.path);
      const excluded = hook.namespaceSelector.matchExpressions.find(
        (e: Manifest) => e.key === "kubernetes.io/metadata.name" && e.operator === "NotIn",
      );
      expect(excluded.values).toEqual(
        expect.arrayContaining(["kube-system", "kube-public", "kube-node-lease", "jobsight"]),
      );
      expect(["Never", "IfNeeded"]).toContain(hook.reinvocationPolicy);
    }
  });

  it("grants the collectors nothing but reading pods, and mounts the host read-only", () => {
    const objects = built("external-database");
    const roles = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
    expect(roles.flatMap((r) => r.rules)).toEqual([
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
    ]);
    const daemonSet = objects.find((o) => o.kind === "DaemonSet")!;
    const pod = daemonSet.spec.template.spec;
    const hostVolumes = new Map(
      pod.volumes.filter((v: Manifest) => v.hostPath).map((v: Manifest) => [v.name, v.hostPath.path]),
    );
    const mounts = pod.containers[0].volumeMounts as Manifest[];
    for (const path of ["/sys/fs/cgroup", "/proc", "/var/lib/kubelet/pod-resources"]) {
      const volume = [...hostVolumes].find(([, p]) => p === path)?.[0];
      expect(
        mounts.find((m) => m.name === volume),
        path,
      ).toMatchObject({ readOnly: true });
    }
  });

  it("runs the server as a non-root user without privileges", () => {
    for (const overlay of OVERLAYS) {
      const deployment = built(overlay).find(
        (o) => o.metadata.name === "jobsight-server" && o.kind === "Deployment",
      )!;
      expect(deployment.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(deployment.spec.template.spec.containers[0].securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
    }
    const embedded = built("embedded-database").find(
      (o) => o.kind === "Deployment" && o.metadata.name === "jobsight-server",
    )!;
    expect(embedded.spec).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
    expect(embedded.spec.template.spec.volumes.find((v: Manifest) => v.name === "data")).toMatchObject({
      persistentVolumeClaim: { claimName: "jobsight-data" },
    });
  });

  it("gives the Argo sensor a workflow template that exists and a role that may create workflows", async () => {
    const docs = FILES.filter((f) => f.includes(`${join("argo", "")}`)).flatMap(yamlDocuments);
    const sensor = docs.find((d) => d.kind === "Sensor")!;
    const source = docs.find((d) => d.kind === "EventSource")!;
    const template = docs.find((d) => d.kind === "WorkflowTemplate")!;
    for (const dep of sensor.spec.dependencies) {
      expect(dep.eventSourceName).toBe(source.metadata.name);
      expect(Object.keys(source.spec.webhook)).toContain(dep.eventName);
    }
    for (const trigger of sensor.spec.triggers) {
      const workflow = trigger.template.argoWorkflow.source.resource;
      expect(await schemaProblems(workflow)).toEqual([]);
      expect(workflow.spec.workflowTemplateRef.name).toBe(template.metadata.name);
      const declared = template.spec.arguments.parameters.map((p: Manifest) => p.name);
      for (const p of workflow.spec.arguments.parameters) expect(declared).toContain(p.name);
      for (const p of trigger.template.argoWorkflow.parameters) {
        const [index, field] = p.dest.split(".").slice(3);
        expect(workflow.spec.arguments.parameters[Number(index)], p.dest).toBeDefined();
        expect(field).toBe("value");
      }
    }
    const account = sensor.spec.template.serviceAccountName;
    const problems = crossReferenceProblems(
      docs.filter((d) => d.kind !== "Sensor" && d.kind !== "EventSource"),
      external,
    );
    expect(problems).toEqual([]);
    const binding = docs.find(
      (d) => d.kind === "RoleBinding" && d.subjects.some((s: Manifest) => s.name === account),
    )!;
    const role = docs.find((d) => d.kind === "Role" && d.metadata.name === binding.roleRef.name)!;
    expect(role.rules).toEqual([{ apiGroups: ["argoproj.io"], resources: ["workflows"], verbs: ["create"] }]);
  });
});

describe("the checks themselves", () => {
  // Each break is one a cluster (or the program in the pod) would refuse; each must be caught.
  const broken = (change: (objects: Manifest[]) => void) => {
    const objects = structuredClone(built("external-database"));
    change(objects);
    return objects;
  };
  const server = (objects: Manifest[]) =>
    objects.find((o) => o.kind === "Deployment" && o.metadata.name === "jobsight-server")!.spec.template.spec;

  it("catch a schema violation and an unknown field", async () => {
    const objects = broken((o) => {
      server(o).containers[0].imagePullPolicy = "Sometimes";
      server(o).containers[0].resource = { limits: { memory: "1Gi" } };
    });
    const problems = (await Promise.all(objects.map(schemaProblems))).flat().join("\n");
    expect(problems).toMatch(/imagePullPolicy must be equal to one of the allowed values/);
    expect(problems).toMatch(/resource is not a field of V1Container/);
  });

  it("catch a Secret, a port and a Service nobody defines", () => {
    const objects = broken((o) => {
      server(o).volumes[0].secret.secretName = "jobsight-webhook-tls";
      server(o).containers[0].readinessProbe.httpGet.port = "http";
      o.find((x) => x.kind === "MutatingWebhookConfiguration")!.webhooks[0].clientConfig.service.name =
        "jobsight-webhook";
    });
    const problems = crossReferenceProblems(objects, external).join("\n");
    expect(problems).toMatch(/volume tls needs Secret jobsight-webhook-tls, which nothing creates/);
    expect(problems).toMatch(/a probe names port http/);
    expect(problems).toMatch(/Service jobsight\/jobsight-webhook is not defined/);
  });

  it("catch a command, a flag and a setting the programs do not have", () => {
    const a = structuredClone(containers(built("external-database"), "server")[0]);
    a.command = ["/usr/bin/tini", "--", "jobsight-server"];
    a.args = ["jobsight-server"];
    expect(serverContainerConfig(a).problems.join()).toMatch(/has no command jobsight-server/);
    a.command = ["/usr/bin/tini", "--", "jobsight-server", "serve"];
    a.args = ["--listen", "0.0.0.0"];
    expect(serverContainerConfig(a).problems.join()).toMatch(/Unknown option '--listen'/);
    a.args = [];
    a.env = [...a.env, { name: "JOBSIGHT_ADMISSION_CLIENT_AUTH", value: "certificate" }];
    expect(serverContainerConfig(a).problems.join()).toMatch(/admission.clientAuth: certificate needs/);
    const c = structuredClone(containers(built("external-database"), "collector")[0]);
    c.env = [...c.env, { name: "JOBSIGHT_COLLECTOR_URL", value: "x" }];
    c.args = ["--mode", "pods"];
    const problems = collectorContainerProblems(c).join("\n");
    expect(problems).toMatch(/JOBSIGHT_COLLECTOR_URL is not a jobsight-collector setting/);
    expect(problems).toMatch(/mode/);
  });
});
