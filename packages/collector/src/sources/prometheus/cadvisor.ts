import type { Logger } from "../../log/logger.js";
import { jobFromCgroupPath } from "../cgroup-job-path.js";
import type { CgroupUsage } from "../cgroup-usage.js";
import { KubeletAuth } from "./kubelet-auth.js";
import { PrometheusEndpoint, type PrometheusEndpointStatus } from "./prometheus-endpoint.js";
import type { PromSample } from "./prometheus-text.js";

type Figures = {
  cpu?: number;
  workingSet?: number;
  rss?: number;
  maxUsage?: number;
  limit?: number;
  periods?: number;
  throttled?: number;
};

const FIELD: Record<string, keyof Figures> = {
  container_cpu_usage_seconds_total: "cpu",
  container_memory_working_set_bytes: "workingSet",
  container_memory_rss: "rss",
  container_memory_max_usage_bytes: "maxUsage",
  container_spec_memory_limit_bytes: "limit",
  container_cpu_cfs_periods_total: "periods",
  container_cpu_cfs_throttled_periods_total: "throttled",
};

function add(into: Figures, field: keyof Figures, value: number): void {
  // A limit of 0 is cAdvisor's "unlimited": one unlimited container leaves the pod unlimited.
  if (field === "limit" && (value === 0 || into.limit === 0)) into.limit = 0;
  else into[field] = (into[field] ?? 0) + value;
}

function toUsage(f: Figures): CgroupUsage {
  const usage: CgroupUsage = {};
  if (f.workingSet !== undefined) {
    usage.memory = { currentBytes: f.workingSet };
    if (f.maxUsage) usage.memory.peakBytes = f.maxUsage;
    if (f.limit) usage.memory.limitBytes = f.limit;
    if (f.rss !== undefined) usage.memory.anonBytes = f.rss;
  }
  if (f.cpu !== undefined) {
    usage.cpu = { usageSeconds: f.cpu };
    if (f.periods !== undefined) usage.cpu.periods = f.periods;
    if (f.throttled !== undefined) usage.cpu.throttledPeriods = f.throttled;
  }
  return usage;
}

/**
 * The usage of each pod in a cAdvisor scrape (the kubelet's `/metrics/cadvisor`), keyed by pod UID
 * as the node collector's Kubernetes jobs are: the UID is read from the `id` label, the cgroup
 * path. The pod-level cgroup's rows (`container=""`) are taken when present, else the pod's
 * containers are summed. Memory in use is the working set, what the kubelet evicts and the
 * kernel reclaims last; per-CPU rows (`cpu` other than `total`) are left out so none counts twice.
 *
 * @example
 * ```ts
 * cadvisorUsage(parsePrometheusText(body).samples).get("0c9e6a1d-…")?.memory?.currentBytes;
 * ```
 */
export function cadvisorUsage(samples: readonly PromSample[]): Map<string, CgroupUsage> {
  const pods = new Map<string, Figures>();
  const containers = new Map<string, Figures>();
  for (const s of samples) {
    const field = FIELD[s.name];
    if (!field || !Number.isFinite(s.value) || s.value < 0) continue;
    const { id, cpu, container } = s.labels;
    if (!id || (cpu !== undefined && cpu !== "total")) continue;
    const job = jobFromCgroupPath(id);
    if (job?.scheduler !== "kubernetes") continue;
    const podLevel = job.step === undefined && !container;
    const into = podLevel ? pods : containers;
    const figures = into.get(job.jobId) ?? {};
    into.set(job.jobId, figures);
    if (podLevel) figures[field] = s.value;
    else add(figures, field, s.value);
  }
  const out = new Map<string, CgroupUsage>();
  for (const [uid, f] of containers) if (!pods.has(uid)) out.set(uid, toUsage(f));
  for (const [uid, f] of pods) out.set(uid, toUsage(f));
  return out;
}

/** Options of {@link CadvisorSource}. */
export type CadvisorSourceOptions = {
  /**
   * The cAdvisor endpoint: the kubelet's authenticated `https://<node IP>:10250/metrics/cadvisor`
   * (with `tokenFile`), or its read-only `http://127.0.0.1:10255/metrics/cadvisor` where enabled.
   */
  url: string;
  /**
   * File of the bearer token sent to the kubelet, its service account granted `get` on
   * `nodes/metrics`; re-read before every scrape. @default no token
   */
  tokenFile?: string;
  /** PEM file of the CA(s) that sign the kubelet's serving certificate. @default the CAs Node.js trusts */
  caFile?: string;
  /** Accept any kubelet certificate (self-signed serving certificates); warned about once. @default false */
  insecureSkipVerify?: boolean;
  /** Time limit of one scrape. @default 5000 */
  timeoutMs?: number;
  /** Called once, the first time the endpoint proves unavailable, and once if the token file stops being readable. @default no-op */
  onUnavailable?: (message: string) => void;
  /** Structured log. @default silent */
  logger?: Logger;
};

/**
 * Per-pod usage scraped from cAdvisor once per collection round, instead of reading the pods'
 * cgroups: for nodes where the collector cannot see the host's cgroup tree. A failed scrape gives
 * `undefined` and the round falls back to the cgroups it can read. Token or CA files that cannot
 * be read throw a `ConfigError` here, at construction.
 *
 * @example
 * ```ts
 * const cadvisor = new CadvisorSource({
 *   url: "https://10.0.0.5:10250/metrics/cadvisor",
 *   tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
 *   caFile: "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt",
 * });
 * const byPodUid = await cadvisor.read();
 * ```
 */
export class CadvisorSource {
  readonly cannotSee = [
    "I/O, pids and pressure stall of each pod",
    "memory peak on cgroup v2 (the largest working set seen stands in)",
  ] as const;
  private readonly endpoint: PrometheusEndpoint;
  private readonly largest = new Map<string, number>();

  constructor(options: CadvisorSourceOptions) {
    const { url, timeoutMs, tokenFile, caFile, insecureSkipVerify, onUnavailable, logger } = options;
    const auth = new KubeletAuth({ tokenFile, caFile, insecureSkipVerify, onUnavailable, logger });
    this.endpoint = new PrometheusEndpoint({ url, timeoutMs, onUnavailable, logger, name: "cAdvisor", auth });
  }

  get status(): PrometheusEndpointStatus {
    return this.endpoint.status;
  }

  /** Scrape once: each pod's usage by pod UID, or `undefined` when the scrape failed. Never rejects. */
  async read(): Promise<Map<string, CgroupUsage> | undefined> {
    const samples = await this.endpoint.scrape();
    if (!samples) return undefined;
    if (!samples.some((s) => s.name in FIELD)) {
      this.endpoint.failed(`${this.endpoint.url} serves no cAdvisor container metrics`);
      return undefined;
    }
    const pods = cadvisorUsage(samples);
    for (const uid of this.largest.keys()) if (!pods.has(uid)) this.largest.delete(uid);
    for (const [uid, u] of pods) {
      if (!u.memory) continue;
      // cgroup v2 has no max_usage: the largest working set seen stands in, as the v2 reader does.
      const seen = Math.max(this.largest.get(uid) ?? 0, u.memory.peakBytes ?? 0, u.memory.currentBytes);
      this.largest.set(uid, seen);
      u.memory.peakBytes = seen;
    }
    return pods;
  }
}
