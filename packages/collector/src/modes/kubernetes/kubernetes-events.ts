import type { NodeEvent } from "@jobsight/schemas/light";
import type { CoreV1Event } from "@kubernetes/client-node";
import { parseOomKilled } from "../../sources/kmsg-parse.js";
import type { PodHints } from "./kubernetes-records.js";
import { isoTime } from "./kubernetes-records.js";

/** What one Kubernetes Event means to the collector. */
export type EventMeaning =
  | { kind: "node-event"; event: NodeEvent }
  | { kind: "pod-hint"; podKey: string; hint: PodHints };

// kubelet's SystemOOM: "System OOM encountered, victim process: python3, pid: 2385"
const SYSTEM_OOM = /victim process: (.+?), pid: (\d+)/;

function eventTime(e: CoreV1Event): string | undefined {
  return (
    isoTime(e.lastTimestamp) ??
    isoTime(e.series?.lastObservedTime) ??
    isoTime(e.eventTime) ??
    isoTime(e.firstTimestamp) ??
    isoTime(e.metadata?.creationTimestamp)
  );
}

function oomKillOf(e: CoreV1Event): NodeEvent["oomKill"] | undefined {
  const message = e.message ?? "";
  if (e.reason === "OOMKilling") return parseOomKilled(message);
  const m = SYSTEM_OOM.exec(message);
  return m ? { pid: Number(m[2]), processName: m[1].slice(0, 256) } : undefined;
}

/**
 * Map a Kubernetes Event (core/v1) to what the collector records:
 * - a node's `OOMKilling` (node-problem-detector's kernel monitor, with the kernel's
 *   `Killed process …` line) or `SystemOOM` (kubelet) becomes an `oom_kill` {@link NodeEvent};
 * - a pod's `Preempted`/`Preempting`, `Evicted` and other warnings (`FailedScheduling`, `BackOff`,
 *   …) become hints that say why the pod ended when its status does not.
 * Everything else (normal pod events, other kinds) is undefined: the node-event schema has no kind
 * for it.
 *
 * @example
 * ```ts
 * meaningOfEvent(event, "k8s1"); // { kind: "node-event", event: { kind: "oom_kill", node: "gpu-1", … } }
 * ```
 */
export function meaningOfEvent(e: CoreV1Event, cluster: string): EventMeaning | undefined {
  const about = e.involvedObject;
  const reason = e.reason ?? "";
  const message = (e.message ?? "").trim();
  if (about?.kind === "Node" && (reason === "OOMKilling" || reason === "SystemOOM")) {
    const oomKill = oomKillOf(e);
    const node = about.name || e.source?.host || e.reportingInstance;
    const time = eventTime(e);
    if (!oomKill || !node || !time) return undefined;
    const occurrence = e.count ?? e.series?.count ?? 1;
    return {
      kind: "node-event",
      event: {
        cluster,
        node: node.slice(0, 256),
        time,
        kind: "oom_kill",
        oomKill,
        message: `${reason}: ${message}`.slice(0, 4096),
        idempotencyKey: `${cluster}:k8s-event:${e.metadata?.uid ?? `${node}:${time}`}:${occurrence}`
          .replace(/[^A-Za-z0-9._:-]/g, "_")
          .slice(0, 128),
      },
    };
  }
  if (about?.kind !== "Pod" || !about.name || !about.namespace) return undefined;
  const podKey = `${about.namespace}/${about.name}`;
  if (reason === "Preempted" || reason === "Preempting")
    return { kind: "pod-hint", podKey, hint: { preempted: message } };
  if (reason === "Evicted") return { kind: "pod-hint", podKey, hint: { evicted: message } };
  if (e.type === "Warning" && reason)
    return { kind: "pod-hint", podKey, hint: { lastWarning: `${reason}: ${message}`.slice(0, 1024) } };
  return undefined;
}
