import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.js";
import { kubeConfigFor } from "./kube-config.js";

const settings = { inCluster: false, namespaces: [], events: true };
const problemsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  return [];
};

describe("kubeConfigFor", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-kc-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function kubeconfig(): string {
    const file = join(dir, "config");
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
- name: lab
  cluster:
    server: https://10.0.0.1:6443
    insecure-skip-tls-verify: true
users:
- name: collector
  user:
    token: abc
contexts:
- name: lab
  context: {cluster: lab, user: collector}
- name: other
  context: {cluster: lab, user: collector}
current-context: lab
`,
    );
    return file;
  }

  it("loads a kubeconfig file and its context", () => {
    const kc = kubeConfigFor({ ...settings, kubeconfig: kubeconfig(), context: "other" });
    expect(kc.getCurrentContext()).toBe("other");
    expect(kc.getCurrentCluster()?.server).toBe("https://10.0.0.1:6443");
  });

  it("names the setting when the configuration cannot be used", () => {
    expect(problemsOf(() => kubeConfigFor({ ...settings, kubeconfig: join(dir, "missing") }))).toEqual([
      expect.stringMatching(/^kubernetes\.kubeconfig: cannot load the Kubernetes configuration: ENOENT/),
    ]);
    expect(
      problemsOf(() => kubeConfigFor({ ...settings, kubeconfig: kubeconfig(), context: "prod" })),
    ).toEqual(['kubernetes.context: no context "prod" in the kubeconfig']);
    const plain = join(dir, "plain");
    writeFileSync(
      plain,
      "clusters: [{name: p, cluster: {server: 'http://127.0.0.1:8001'}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: p, context: {cluster: p, user: u}}]\ncurrent-context: p\n",
    );
    expect(problemsOf(() => kubeConfigFor({ ...settings, kubeconfig: plain }))).toEqual([
      "kubernetes.kubeconfig: cluster server http://127.0.0.1:8001 is plain http: the Kubernetes client needs insecure-skip-tls-verify: true for it",
    ]);
    expect(problemsOf(() => kubeConfigFor({ ...settings, inCluster: true }, {}))).toEqual([
      "kubernetes.inCluster: cannot load the Kubernetes configuration: KUBERNETES_SERVICE_HOST is not set: the collector is not running in a pod",
    ]);
  });
});
