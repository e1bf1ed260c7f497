import type { Finding, FindingKind } from "@jobsight/schemas";
import { namesCrash } from "../crash/crash-claim.js";

/** A short human label per finding kind, for summaries, Markdown and prompts. */
export const FINDING_LABELS: Readonly<Record<FindingKind, string>> = Object.freeze({
  oom_kill: "Out-of-memory kill",
  gpu_fault_application: "GPU error in the application",
  gpu_fault_hardware: "GPU hardware or driver fault",
  stalled_data_loader: "Stalled data loader",
  gpus_unused: "GPUs reserved but unused",
  gpu_underutilised: "GPUs under-utilised",
  gpu_memory_overreserved: "GPU memory over-reserved",
  timeout: "Timeout",
  walltime_overrequested: "Walltime over-requested",
  cpu_low_efficiency: "Low CPU efficiency",
  cpu_oversubscribed: "CPU oversubscribed",
  cpu_throttled: "CPU throttled",
  memory_overrequested: "Memory over-requested",
  node_failure: "Node failure",
  preempted: "Preempted",
  cancelled: "Cancelled",
  job_error: "The job's own error",
});

/**
 * Findings that explain a failure; job_error names the failure without explaining it, unless it
 * recognised the crash in the job's own output.
 */
export function explainsFailure(f: Finding): boolean {
  return f.severity === "error" && (f.kind !== "job_error" || namesCrash(f));
}

/** The first sentence of a claim (decimal points do not end a sentence). */
export function firstSentence(text: string): string {
  const m = /^.*?[.!?](?=\s+[A-Z]|$)/s.exec(text);
  return (m ? m[0] : text).trim();
}
