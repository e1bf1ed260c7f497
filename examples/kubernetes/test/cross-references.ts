import type { Manifest } from "./kustomize.js";

/** Secrets and ConfigMaps the README has the operator create: `namespace/name` → keys. */
export type External = Map<string, Set<string>>;

/**
 * Secrets and ConfigMaps that the guide's commands create (`kubectl -n NS create secret generic
 * NAME --from-literal=KEY=…`, `--from-file=KEY=…`, `create configmap`), read from its text.
 */
export function createdByGuide(readme: string): External {
  const out: External = new Map();
  for (const line of readme.split("\n")) {
    const m = /kubectl -n (\S+) create (?:secret generic|configmap) (\S+)(.*)$/.exec(line);
    if (!m) continue;
    const keys = [...m[3].matchAll(/--from-(?:literal|file)=([^=\s]+)/g)].map((k) => k[1]);
    out.set(`${m[1]}/${m[2]}`, new Set(keys));
  }
  return out;
}

const CERT_KEYS = ["tls.crt", "tls.key", "ca.crt"];
const CONTROLLERS = new Set(["Deployment", "DaemonSet", "StatefulSet", "Job"]);

/** Pod templates of the controllers among `objects`, with their namespace. */
export function podTemplates(objects: Manifest[]): { owner: Manifest; ns: string; pod: Manifest }[] {
  return objects
    .filter((o) => CONTROLLERS.has(o.kind))
    .map((o) => ({ owner: o, ns: o.metadata.namespace, pod: o.spec.template }));
}

const labelsMatch = (selector: Record<string, string> = {}, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/**
 * Every name one object gives another, checked against what exists: Secrets, ConfigMaps and their
 * keys (defined, made by cert-manager or by the guide), volumes and mounts, container ports named
 * by probes, Services and NetworkPolicies, service accounts, RBAC roles, issuers, and the webhook's
 * Service, port and certificate. Returns the problems, empty when everything resolves.
 */
export function crossReferenceProblems(objects: Manifest[], external: External): string[] {
  const problems: string[] = [];
  const named = (kind: string, ns: string | undefined, name: string) =>
    objects.find(
      (o) => o.kind === kind && o.metadata.name === name && (ns === undefined || o.metadata.namespace === ns),
    );
  const secretKeys = (ns: string, name: string): Set<string> | undefined => {
    const defined = named("Secret", ns, name);
    if (defined) return new Set(Object.keys({ ...defined.data, ...defined.stringData }));
    if (
      objects.some(
        (o) => o.kind === "Certificate" && o.metadata.namespace === ns && o.spec.secretName === name,
      )
    )
      return new Set(CERT_KEYS);
    return external.get(`${ns}/${name}`);
  };
  const configMapKeys = (ns: string, name: string) => {
    const defined = named("ConfigMap", ns, name);
    return defined ? new Set(Object.keys(defined.data ?? {})) : external.get(`${ns}/${name}`);
  };
  const namespaces = new Set(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
  for (const o of objects) {
    const ns = o.metadata.namespace;
    if (ns && namespaces.size > 0 && !namespaces.has(ns))
      problems.push(`${o.kind} ${o.metadata.name}: namespace ${ns} is not defined`);
  }
  for (const { owner, ns, pod } of podTemplates(objects)) {
    const where = `${owner.kind} ${owner.metadata.name}`;
    if (!labelsMatch(owner.spec.selector?.matchLabels, pod.metadata?.labels))
      problems.push(`${where}: the selector does not match the pod template's labels`);
    const sa = pod.spec.serviceAccountName;
    if (sa && sa !== "default" && !named("ServiceAccount", ns, sa))
      problems.push(`${where}: service account ${sa} is not defined`);
    const volumes = new Map<string, Manifest>((pod.spec.volumes ?? []).map((v: Manifest) => [v.name, v]));
    const mounted = new Set<string>();
    for (const v of volumes.values()) {
      const keys = v.secret
        ? secretKeys(ns, v.secret.secretName)
        : v.configMap
          ? configMapKeys(ns, v.configMap.name)
          : undefined;
      const source = v.secret
        ? `Secret ${v.secret.secretName}`
        : v.configMap
          ? `ConfigMap ${v.configMap.name}`
          : undefined;
      if ((v.secret || v.configMap) && !keys)
        problems.push(`${where}: volume ${v.name} needs ${source}, which nothing creates`);
      for (const item of (v.secret ?? v.configMap)?.items ?? []) {
        if (keys && !keys.has(item.key)) problems.push(`${where}: ${source} has no key ${item.key}`);
      }
    }
    for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
      const ports = new Set((c.ports ?? []).map((p: Manifest) => p.name));
      for (const m of c.volumeMounts ?? []) {
        mounted.add(m.name);
        if (!volumes.has(m.name))
          problems.push(`${where}: ${c.name} mounts ${m.name}, which is not a volume`);
      }
      for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe]) {
        const port = probe?.httpGet?.port ?? probe?.tcpSocket?.port;
        if (typeof port === "string" && !ports.has(port))
          problems.push(`${where}: a probe names port ${port}, which ${c.name} does not have`);
      }
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !secretKeys(ns, ref.name)?.has(ref.key))
          problems.push(`${where}: ${e.name} needs key ${ref.key} of Secret ${ref.name}`);
      }
      for (const e of c.envFrom ?? []) {
        if (e.secretRef && !secretKeys(ns, e.secretRef.name))
          problems.push(`${where}: envFrom needs Secret ${e.secretRef.name}, which nothing creates`);
      }
      // A file the container is told about must be on one of its mounts.
      for (const e of c.env ?? []) {
        if (!/_(FILE|CERTS)$/.test(e.name) || typeof e.value !== "string") continue;
        const m = (c.volumeMounts ?? []).find((vm: Manifest) => e.value.startsWith(`${vm.mountPath}/`));
        if (!m) problems.push(`${where}: ${e.name}=${e.value} is on no volume`);
        const v = m && volumes.get(m.name);
        const file = m ? e.value.slice(m.mountPath.length + 1) : "";
        const keys = v?.secret
          ? secretKeys(ns, v.secret.secretName)
          : v?.configMap
            ? configMapKeys(ns, v.configMap.name)
            : undefined;
        const items = (v?.secret ?? v?.configMap)?.items as Manifest[] | undefined;
        const key = items ? items.find((i) => i.path === file)?.key : file;
        if (keys && (!key || !keys.has(key)))
          problems.push(`${where}: ${e.name}=${e.value}: the volume holds no ${file}`);
      }
    }
    for (const name of volumes.keys())
      if (!mounted.has(name)) problems.push(`${where}: volume ${name} is mounted nowhere`);
  }
  const podsOf = (ns: string, selector: Record<string, string>) =>
    podTemplates(objects).filter((t) => t.ns === ns && labelsMatch(selector, t.pod.metadata?.labels));
  const portNamed = (pods: Manifest[], name: string | number) =>
    typeof name === "number" ||
    pods.some((t) =>
      t.pod.spec.containers.some((c: Manifest) => (c.ports ?? []).some((p: Manifest) => p.name === name)),
    );
  for (const s of objects.filter((o) => o.kind === "Service")) {
    const pods = podsOf(s.metadata.namespace, s.spec.selector);
    if (pods.length === 0) problems.push(`Service ${s.metadata.name}: selects no pods`);
    for (const p of s.spec.ports)
      if (!portNamed(pods, p.targetPort ?? p.port))
        problems.push(`Service ${s.metadata.name}: no pod has port ${p.targetPort}`);
  }
  for (const np of objects.filter((o) => o.kind === "NetworkPolicy")) {
    const pods = podsOf(np.metadata.namespace, np.spec.podSelector.matchLabels);
    if (pods.length === 0) problems.push(`NetworkPolicy ${np.metadata.name}: selects no pods`);
    for (const rule of np.spec.ingress ?? []) {
      for (const p of rule.ports ?? [])
        if (!portNamed(pods, p.port))
          problems.push(`NetworkPolicy ${np.metadata.name}: no pod has port ${p.port}`);
      for (const from of rule.from ?? []) {
        if (
          from.podSelector &&
          !from.namespaceSelector &&
          podsOf(np.metadata.namespace, from.podSelector.matchLabels).length === 0
        )
          problems.push(
            `NetworkPolicy ${np.metadata.name}: admits pods ${JSON.stringify(from.podSelector.matchLabels)}, and there are none`,
          );
      }
    }
  }
  for (const b of objects.filter((o) => o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding")) {
    if (!named(b.roleRef.kind, b.roleRef.kind === "Role" ? b.metadata.namespace : undefined, b.roleRef.name))
      problems.push(`${b.kind} ${b.metadata.name}: ${b.roleRef.kind} ${b.roleRef.name} is not defined`);
    for (const s of b.subjects ?? [])
      if (s.kind === "ServiceAccount" && !named("ServiceAccount", s.namespace, s.name))
        problems.push(`${b.kind} ${b.metadata.name}: service account ${s.name} is not defined`);
  }
  for (const c of objects.filter((o) => o.kind === "Certificate")) {
    if (!named(c.spec.issuerRef.kind ?? "Issuer", c.metadata.namespace, c.spec.issuerRef.name))
      problems.push(`Certificate ${c.metadata.name}: issuer ${c.spec.issuerRef.name} is not defined`);
  }
  for (const i of objects.filter((o) => o.kind === "Issuer" && o.spec.ca)) {
    if (!secretKeys(i.metadata.namespace, i.spec.ca.secretName))
      problems.push(`Issuer ${i.metadata.name}: no Secret ${i.spec.ca.secretName}`);
  }
  for (const w of objects.filter((o) => o.kind === "MutatingWebhookConfiguration")) {
    const [certNs, certName] = String(w.metadata.annotations?.["cert-manager.io/inject-ca-from"]).split("/");
    const cert = named("Certificate", certNs, certName);
    for (const hook of w.webhooks) {
      const svc = hook.clientConfig.service;
      const service = named("Service", svc.namespace, svc.name);
      if (!service)
        problems.push(`webhook ${hook.name}: Service ${svc.namespace}/${svc.name} is not defined`);
      else if (!service.spec.ports.some((p: Manifest) => p.port === (svc.port ?? 443)))
        problems.push(`webhook ${hook.name}: Service ${svc.name} has no port ${svc.port}`);
      if (!cert)
        problems.push(`webhook ${hook.name}: no Certificate ${certNs}/${certName} gives its caBundle`);
      else if (!cert.spec.dnsNames.includes(`${svc.name}.${svc.namespace}.svc`))
        problems.push(`webhook ${hook.name}: the certificate does not name ${svc.name}.${svc.namespace}.svc`);
    }
  }
  return problems;
}
