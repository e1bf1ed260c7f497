import { KubeConfig } from "@kubernetes/client-node";
import { ConfigError } from "../errors.js";
import type { CollectorConfig } from "./collector-config.js";

/**
 * The Kubernetes client configuration for kubernetes mode: the in-cluster service account
 * (`kubernetes.inCluster`), a kubeconfig file (`kubernetes.kubeconfig`), else the client's default
 * search (`$KUBECONFIG`, `~/.kube/config`, in-cluster). Problems are a {@link ConfigError} naming
 * the setting.
 *
 * @example
 * ```ts
 * const kc = kubeConfigFor(config.kubernetes);
 * ```
 */
export function kubeConfigFor(
  k: CollectorConfig["kubernetes"],
  env: Record<string, string | undefined> = process.env,
): KubeConfig {
  const kc = new KubeConfig();
  const path = k.inCluster ? "kubernetes.inCluster" : "kubernetes.kubeconfig";
  try {
    if (k.inCluster) {
      if (!env.KUBERNETES_SERVICE_HOST)
        throw new Error("KUBERNETES_SERVICE_HOST is not set: the collector is not running in a pod");
      kc.loadFromCluster();
    } else if (k.kubeconfig) kc.loadFromFile(k.kubeconfig);
    else kc.loadFromDefault();
  } catch (error) {
    throw new ConfigError([
      { path, message: `cannot load the Kubernetes configuration: ${(error as Error).message}` },
    ]);
  }
  if (k.context) {
    if (!kc.getContexts().some((c) => c.name === k.context))
      throw new ConfigError([
        { path: "kubernetes.context", message: `no context "${k.context}" in the kubeconfig` },
      ]);
    kc.setCurrentContext(k.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new ConfigError([{ path, message: "names no cluster server to connect to" }]);
  // The client refuses plain http unless TLS checks are off; say so now rather than retry forever.
  if (cluster.server.startsWith("http:") && !cluster.skipTLSVerify)
    throw new ConfigError([
      {
        path,
        message: `cluster server ${cluster.server} is plain http: the Kubernetes client needs insecure-skip-tls-verify: true for it`,
      },
    ]);
  return kc;
}
