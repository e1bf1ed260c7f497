import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../packages/collector/src/config/load-config.js";
import { collectorContainerProblems } from "./cli-references.js";
import { createdByGuide, crossReferenceProblems } from "./cross-references.js";
import { kubectlKustomize, kustomize, type Manifest } from "./kustomize.js";
import { schemaProblems } from "./openapi-schemas.js";

// The node collector scraping cAdvisor on the kubelet's authenticated port, as the component
// deploy/kubernetes-collector/kubelet-cadvisor sets it up in either overlay: the URL of the
// node's own kubelet, the projected service account token and the cluster CA, and RBAC `get` on
// `nodes/metrics` (what the kubelet asks the API server about a scrape of /metrics/cadvisor).

const KUBERNETES = join(import.meta.dirname, "..");
const COMPONENT = join(KUBERNETES, "..", "deploy", "kubernetes-collector", "kubelet-cadvisor");
const SA = "/var/run/secrets/kubernetes.io/serviceaccount";
const OVERLAYS = ["embedded-database", "external-database"];

/** An overlay with the component, by the test resolver and (where installed) by `kubectl kustomize`. */
function withKubeletCadvisor(overlay: string): { objects: Manifest[]; kubectl?: Manifest[] } {
  const dir = mkdtempSync(join(tmpdir(), "jobsight-kustomize-"));
  try {
    writeFileSync(
      join(dir, "kustomization.yaml"),
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${relative(dir, join(KUBERNETES, "overlays", overlay))}]\ncomponents: [${relative(dir, COMPONENT)}]\n`,
    );
    return { objects: kustomize(dir), kubectl: kubectlKustomize(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A container's environment as the kubelet makes it: field references filled, `$(NAME)` of earlier variables expanded. */
function podEnv(container: Manifest, fields: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env as Manifest[]) {
    const raw = String(e.value ?? fields[e.valueFrom?.fieldRef?.fieldPath] ?? `<${e.name}>`);
    env[e.name] = raw.replace(/\$\((\w+)\)/g, (ref, name: string) => env[name] ?? ref);
  }
  return env;
}

const daemonSet = (objects: Manifest[]) => objects.find((o) => o.kind === "DaemonSet")!;

describe.each(OVERLAYS)("overlay %s with the kubelet-cadvisor component", (overlay) => {
  const { objects, kubectl } = withKubeletCadvisor(overlay);

  it("builds objects that match their schemas and name only what exists, as kubectl kustomize builds them", async () => {
    expect((await Promise.all(objects.map(schemaProblems))).flat()).toEqual([]);
    const readme = readFileSync(join(KUBERNETES, "README.md"), "utf8");
    expect(crossReferenceProblems(objects, createdByGuide(readme))).toEqual([]);
    if (kubectl) {
      const key = (o: Manifest) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
      const ours = new Map(objects.map((o) => [key(o), o]));
      expect(kubectl.map(key).sort()).toEqual([...ours.keys()].sort());
      for (const o of kubectl) expect(ours.get(key(o))).toEqual(o);
    }
  });

  it("scrapes the node's own kubelet on 10250 with the projected token and the cluster CA", () => {
    const pod = daemonSet(objects).spec.template.spec;
    const [collector] = pod.containers as Manifest[];
    expect(collectorContainerProblems(collector)).toEqual([]);
    const env = podEnv(collector, { "status.hostIP": "10.0.0.5", "spec.nodeName": "node-1" });
    const args = [...collector.command, ...collector.args].slice(1);
    const config = loadConfig({ argv: args, env, hostname: "node-1", readFile: () => "{}" });
    expect(config.prometheus).toEqual({
      cadvisorUrl: "https://10.0.0.5:10250/metrics/cadvisor",
      cadvisorTokenFile: `${SA}/token`,
      cadvisorCaFile: `${SA}/ca.crt`,
      cadvisorInsecureSkipVerify: false,
    });
    const mount = (collector.volumeMounts as Manifest[]).find((m) => m.mountPath === SA)!;
    expect(mount.readOnly).toBe(true);
    const volume = (pod.volumes as Manifest[]).find((v) => v.name === mount.name)!;
    // The token the kubelet rotates (not a Secret's, which never expires) and the CA every namespace gets.
    expect(volume.projected.sources).toEqual([
      { serviceAccountToken: { path: "token", expirationSeconds: expect.any(Number) } },
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
    ]);
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it("lets the DaemonSet's service account get nodes/metrics and nothing else", () => {
    const account = daemonSet(objects).spec.template.spec.serviceAccountName;
    const bindings = objects.filter(
      (o) =>
        o.kind === "ClusterRoleBinding" &&
        o.subjects.some(
          (s: Manifest) => s.kind === "ServiceAccount" && s.name === account && s.namespace === "jobsight",
        ),
    );
    const rules = bindings.flatMap(
      (b) => objects.find((o) => o.kind === "ClusterRole" && o.metadata.name === b.roleRef.name)!.rules,
    );
    expect(rules).toEqual([{ apiGroups: [""], resources: ["nodes/metrics"], verbs: ["get"] }]);
    expect(objects.some((o) => o.kind === "RoleBinding")).toBe(false);
  });
});
