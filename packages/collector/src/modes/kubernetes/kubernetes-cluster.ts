import type { JobRecord, JobStep } from "@jobsight/schemas/light";
import {
  CoreV1Api,
  type CoreV1Event,
  type KubeConfig,
  type KubernetesObject,
  type V1Pod,
} from "@kubernetes/client-node";
import { type Logger, silentLogger } from "../../log/logger.js";
import type { BackoffOptions } from "../../ship/backoff.js";
import type { DiskSpool } from "../../spool/disk-spool.js";
import { QueuedSpoolWriter, type SpoolItem } from "../../spool/queued-spool-writer.js";
import { meaningOfEvent } from "./kubernetes-events.js";
import { isoTime, type PodHints, previousRunSteps, recordFromPod } from "./kubernetes-records.js";
import { ResilientWatch } from "./kubernetes-watch.js";

/** Options of {@link KubernetesCluster}. */
export type KubernetesClusterOptions = {
  cluster: string;
  spool: DiskSpool;
  /** Where the API server is and how to authenticate (see `kubeConfigFor`). */
  kubeConfig: KubeConfig;
  /** Namespaces whose pods are watched. @default [] (every namespace) */
  namespaces?: string[];
  /** Only pods matching this label selector. @default undefined (every pod) */
  labelSelector?: string;
  /** Watch Events too (node OOM kills, evictions, preemptions, scheduling failures). @default true */
  events?: boolean;
  /** Back-off between failed lists or watches. @default 1 s doubling to 60 s */
  backoff?: BackoffOptions;
  /** Clock. @default Date.now */
  now?: () => number;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** Figures for health output. */
export type KubernetesClusterStats = {
  /** Pod additions, updates and deletions seen. */
  podChanges: number;
  /** Events (core/v1) seen. */
  events: number;
  /** Job records spooled. */
  records: number;
  /** Node events spooled. */
  nodeEvents: number;
  /** Successful lists (the first of each watch, and every relist after `410 Gone` or a failure). */
  lists: number;
  /** Lists or watches that failed (then retried with back-off). */
  watchErrors: number;
  /** Records that could not be spooled (retried). */
  spoolFailures: number;
  /** Watches failing now (waiting to retry); more than none makes `/healthz` say degraded. */
  failingWatches: number;
  lastChangeAt: string | null;
};

const phaseRank: Record<string, number> = { submitted: 0, started: 1, ended: 2 };
const MAX_TRACKED = 100_000;

function trim<K, V>(map: Map<K, V>): void {
  if (map.size <= MAX_TRACKED) return;
  for (const key of [...map.keys()].slice(0, map.size - MAX_TRACKED / 2)) map.delete(key);
}

/**
 * Kubernetes cluster mode: watches pods (list, then watch from the list's `resourceVersion`,
 * relisting after `410 Gone`, reconnecting with back-off after errors) through
 * `@kubernetes/client-node` informers, and spools one {@link JobRecord} per pod and phase
 * (submitted, started, ended) with the key `<cluster>:<pod uid>:<phase>`. Events
 * are watched too: node OOM kills become `oom_kill` node events, and a pod's evictions, preemptions
 * and warnings say why it ended where its status does not. Nothing here throws into the host.
 *
 * @example
 * ```ts
 * const k8s = new KubernetesCluster({ cluster: "k8s1", spool, kubeConfig: kubeConfigFor(config.kubernetes) });
 * k8s.start();
 * ```
 */
export class KubernetesCluster {
  private readonly o: KubernetesClusterOptions;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly watches: ResilientWatch<KubernetesObject>[] = [];
  private readonly pods: ResilientWatch<V1Pod>[] = [];
  /** Last phase spooled per pod uid. */
  private readonly emitted = new Map<string, string>();
  /** Earlier runs of restarted containers per pod uid. */
  private readonly runs = new Map<string, Map<string, JobStep>>();
  private readonly hints = new Map<string, PodHints>();
  private readonly seenEvents = new Map<string, true>();
  private readonly writer: QueuedSpoolWriter;
  private stopped = true;
  private readonly figures: KubernetesClusterStats = {
    podChanges: 0,
    events: 0,
    records: 0,
    nodeEvents: 0,
    lists: 0,
    watchErrors: 0,
    spoolFailures: 0,
    failingWatches: 0,
    lastChangeAt: null,
  };

  constructor(options: KubernetesClusterOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.writer = new QueuedSpoolWriter({
      spool: options.spool,
      check: (items) => this.checked(items),
      onWritten: (items) => {
        for (const i of items) this.figures[i.kind === "job" ? "records" : "nodeEvents"]++;
      },
      onFailed: () => this.figures.spoolFailures++,
      logger: this.log,
    });
  }

  /** Start the watches; returns at once (lists and watches run in the background). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const api = this.o.kubeConfig.makeApiClient(CoreV1Api);
    const namespaces = this.o.namespaces ?? [];
    const labelSelector = this.o.labelSelector;
    for (const ns of namespaces.length > 0 ? namespaces : [undefined]) {
      const w = this.watch<V1Pod>(
        `pods${ns ? ` in ${ns}` : ""}`,
        ns ? `/api/v1/namespaces/${ns}/pods` : "/api/v1/pods",
        () =>
          ns
            ? api.listNamespacedPod({ namespace: ns, labelSelector })
            : api.listPodForAllNamespaces({ labelSelector }),
        labelSelector,
      );
      w.on("add", (p) => this.onPod(p, false));
      w.on("update", (p) => this.onPod(p, false));
      w.on("delete", (p) => this.onPod(p, true));
      this.pods.push(w);
    }
    if (this.o.events ?? true) {
      // Nodes' events are recorded in the default namespace.
      const scopes = namespaces.length > 0 ? [...new Set([...namespaces, "default"])] : [undefined];
      for (const ns of scopes) {
        const w = this.watch<CoreV1Event>(
          `events${ns ? ` in ${ns}` : ""}`,
          ns ? `/api/v1/namespaces/${ns}/events` : "/api/v1/events",
          () => (ns ? api.listNamespacedEvent({ namespace: ns }) : api.listEventForAllNamespaces()),
        );
        w.on("add", (e) => this.onEvent(e));
        w.on("update", (e) => this.onEvent(e));
      }
    }
    for (const w of this.watches) w.start();
  }

  /** Stop watching and spool what is still queued. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.watches.map((w) => w.stop()));
    this.watches.length = 0;
    this.pods.length = 0;
    await this.writer.close();
  }

  stats(): KubernetesClusterStats {
    return { ...this.figures, failingWatches: this.watches.filter((w) => w.failing).length };
  }

  private watch<T extends KubernetesObject>(
    what: string,
    path: string,
    list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>,
    labelSelector?: string,
  ): ResilientWatch<T> {
    const w = new ResilientWatch<T>({
      what,
      path,
      list,
      labelSelector,
      kubeConfig: this.o.kubeConfig,
      backoff: this.o.backoff,
      logger: this.log,
      onList: () => this.figures.lists++,
      onError: () => this.figures.watchErrors++,
    });
    this.watches.push(w as unknown as ResilientWatch<KubernetesObject>);
    return w;
  }

  private onPod(pod: V1Pod, deleted: boolean): void {
    try {
      this.figures.podChanges++;
      this.figures.lastChangeAt = new Date(this.now()).toISOString();
      const meta = pod.metadata;
      if (!meta?.name || !meta.namespace) return;
      const key = `${meta.namespace}/${meta.name}`;
      const uid = meta.uid ?? key;
      let runs = this.runs.get(uid);
      for (const step of previousRunSteps(pod)) {
        if (!runs) {
          runs = new Map();
          this.runs.set(uid, runs);
        }
        runs.set(step.stepId, step);
      }
      const record = recordFromPod(pod, this.o.cluster, {
        deleted,
        hints: this.hints.get(key),
        previousRuns: runs ? [...runs.values()] : undefined,
        now: this.now,
      });
      if (!record) return;
      const seen = this.emitted.get(uid);
      if (seen !== undefined && phaseRank[seen] >= phaseRank[record.phase]) return;
      // The uid, not the name: a pod re-created under the same name is another job run, and a
      // long namespace/name cut to the key's 128 characters would lose the phase.
      record.idempotencyKey = `${this.o.cluster}:${uid.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 48)}:${record.phase}`;
      this.emitted.set(uid, record.phase);
      trim(this.emitted);
      if (record.phase === "ended") {
        this.runs.delete(uid);
        this.hints.delete(key);
      }
      this.writer.push("job", record);
    } catch (error) {
      this.log.error("could not record a pod", { error, pod: pod?.metadata?.name });
    }
  }

  private onEvent(e: CoreV1Event): void {
    try {
      this.figures.events++;
      const meaning = meaningOfEvent(e, this.o.cluster);
      if (!meaning) return;
      if (meaning.kind === "pod-hint") {
        this.hints.set(meaning.podKey, { ...this.hints.get(meaning.podKey), ...meaning.hint });
        trim(this.hints);
        return;
      }
      const event = meaning.event;
      const key = event.idempotencyKey ?? `${event.node}:${event.time}`;
      if (this.seenEvents.has(key)) return;
      this.seenEvents.set(key, true);
      trim(this.seenEvents);
      const jobId = this.podKilledOn(event.node, event.time);
      if (jobId) event.jobId = jobId;
      this.writer.push("event", event);
    } catch (error) {
      this.log.error("could not record an event", { error, event: e?.metadata?.name });
    }
  }

  /** The one pod on `node` whose container was OOM-killed within two minutes of `time`, if exactly one. */
  private podKilledOn(node: string, time: string): string | undefined {
    const at = Date.parse(time);
    const found = new Set<string>();
    for (const w of this.pods) {
      for (const pod of w.list()) {
        if (pod.spec?.nodeName !== node) continue;
        for (const s of [
          ...(pod.status?.initContainerStatuses ?? []),
          ...(pod.status?.containerStatuses ?? []),
        ]) {
          for (const t of [s.state?.terminated, s.lastState?.terminated]) {
            const end = isoTime(t?.finishedAt);
            if (t?.reason === "OOMKilled" && end && Math.abs(Date.parse(end) - at) <= 120_000)
              found.add(`${pod.metadata?.namespace}/${pod.metadata?.name}`);
          }
        }
      }
    }
    return found.size === 1 ? [...found][0] : undefined;
  }

  /** Job records that do not fit the schema are logged and left out (the validators load on first use). */
  private async checked(items: SpoolItem[]): Promise<SpoolItem[]> {
    const { validateJobRecord } = await import("@jobsight/schemas");
    return items.filter((item) => {
      if (item.kind !== "job") return true;
      const v = validateJobRecord(item.value) as { ok: boolean; errors?: unknown[] };
      if (!v.ok)
        this.log.warn("skipping a pod that does not fit the schema", {
          jobId: (item.value as JobRecord).jobId,
          errors: v.errors?.slice(0, 5),
        });
      return v.ok;
    });
  }
}
