import type { NodeEvent } from "@jobsight/schemas/light";
import type { KernelLog } from "./kernel-log.js";

/**
 * Why this node's kernel log is not being read (not watched, or it could not be opened), or
 * undefined while it is read.
 *
 * @example
 * ```ts
 * kernelLogUnread(undefined); // "not watched: the collector runs with --kmsg false"
 * ```
 */
export function kernelLogUnread(log: KernelLog | undefined): string | undefined {
  if (!log) return "not watched: the collector runs with --kmsg false";
  return log.unavailableReason;
}

/**
 * The `source_unavailable` event (source `kmsg`) telling the server that the kernel log of `node`
 * went unread while `jobId` ran there. Attributed to the job, so a diagnosis finds it however long
 * after the collector's start the job ran; its idempotency key stores it once per job and node.
 *
 * @example
 * ```ts
 * kernelLogUnreadEvent({ cluster: "hpc1", node: "n01", jobId: "4242", time, reason });
 * ```
 */
export function kernelLogUnreadEvent(o: {
  cluster: string;
  node: string;
  jobId: string;
  time: string;
  reason: string;
}): NodeEvent {
  return {
    cluster: o.cluster,
    node: o.node,
    time: o.time,
    kind: "source_unavailable",
    source: "kmsg",
    jobId: o.jobId,
    message: o.reason.slice(0, 4096) || "kmsg",
    idempotencyKey: `kmsg-unread:${o.node}:${o.jobId}`.replace(/[^A-Za-z0-9._:-]/g, "_").slice(0, 128),
  };
}
