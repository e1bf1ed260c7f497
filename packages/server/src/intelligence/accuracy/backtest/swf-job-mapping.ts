import type { SwfRecord } from "../../../data-plane/import/swf-parser.js";
import type { HistoryJob, JobOutcomeKind } from "../../history-job.js";

const KIB = 1024;

/**
 * Turns one SWF job line into a {@link HistoryJob}. Memory in SWF is per processor, so it is
 * multiplied by the processor count (used by allocated, requested by requested). Cores used is
 * derived from the average CPU time when the log has it. A failed job that ran to its requested
 * time is a timeout.
 *
 * @example
 * ```ts
 * const job = swfRecordToHistoryJob(record, reader.header.unixStartTime);
 * ```
 */
export function swfRecordToHistoryJob(r: SwfRecord, unixStartTime: number): HistoryJob {
  const submitTime = unixStartTime + r.submitTime;
  const wait = Math.max(r.waitTime, 0);
  const run = r.runTime >= 0 ? r.runTime : undefined;
  const startTime = submitTime + wait;
  const allocated = positive(r.allocatedProcessors);
  const requestedProcs = positive(r.requestedProcessors) ?? allocated;
  const usedMemPerProc = positive(r.usedMemoryKb);
  const reqMemPerProc = positive(r.requestedMemoryKb);
  const cpu = r.averageCpuTime >= 0 ? r.averageCpuTime : undefined;
  const cores =
    cpu !== undefined && run !== undefined && run > 0 && allocated !== undefined
      ? allocated * Math.min(1, cpu / run)
      : undefined;
  return {
    id: String(r.jobNumber),
    submitTime,
    startTime,
    endTime: startTime + (run ?? 0),
    user: String(r.userId),
    group: r.groupId >= 0 ? String(r.groupId) : undefined,
    executable: r.executableId >= 0 ? String(r.executableId) : undefined,
    queue: r.queueNumber >= 0 ? String(r.queueNumber) : undefined,
    partition: r.partitionNumber >= 0 ? String(r.partitionNumber) : undefined,
    requested: {
      cores: requestedProcs,
      walltimeSeconds: positive(r.requestedTime),
      memoryBytes:
        reqMemPerProc !== undefined && requestedProcs !== undefined
          ? reqMemPerProc * requestedProcs * KIB
          : undefined,
    },
    used: {
      cores,
      walltimeSeconds: run,
      memoryBytes:
        usedMemPerProc !== undefined && allocated !== undefined
          ? usedMemPerProc * allocated * KIB
          : undefined,
    },
    outcome: swfOutcome(r),
  };
}

function swfOutcome(r: SwfRecord): JobOutcomeKind {
  if (r.status === 1) return "completed";
  if (r.status === 5) return "cancelled";
  if (r.requestedTime > 0 && r.runTime >= r.requestedTime) return "timeout";
  return "failed";
}

function positive(v: number): number | undefined {
  return v > 0 ? v : undefined;
}
