import type { NodeEvent } from "@jobsight/schemas/light";
import type { CgroupVersion } from "../sources/cgroup-layout.js";
import { CGROUP_V1_CANNOT_SEE } from "../sources/cgroup-v1-reader.js";
import { PROC_SUMS_CANNOT_SEE } from "../sources/proc-job-attribution.js";
import type { RoundUsage } from "./scraped-usage.js";

/** A source named as reports give it, and what it cannot observe (its `cannotSee`). */
export type DeclaredSource = { readonly name: string; readonly cannotSee: readonly string[] };

/** Options of {@link SourceLimits}. */
export type SourceLimitsOptions = {
  /** The cluster the events are reported under. */
  cluster: string;
  /** How the node's jobs are read where no scraped source replaces it: cgroup v1 and /proc sums have limits. */
  cgroupVersion: CgroupVersion;
  /** The GPU source, named as in {@link gpuSourceName}. @default none */
  gpu?: DeclaredSource;
  /** cAdvisor, when pods' usage is scraped from it. @default none */
  cadvisor?: { readonly cannotSee: readonly string[] };
  /** node_exporter, when a job alone on the node gets the node's usage; its status tells whether this round's scrape answered. @default none */
  nodeExporter?: { readonly cannotSee: readonly string[]; readonly status: string };
};

/** What one round read, as the node mode has it once the round's readings are in. */
export type SourceLimitsRound = {
  /** The round's instant (RFC 3339). */
  time: string;
  /** Each job's reading this round, with the node it is reported under and its cgroup directory. */
  usage: RoundUsage;
  /** The pods cAdvisor gave usage for this round (undefined when not scraped or the scrape failed). */
  scraped?: ReadonlyMap<string, unknown>;
  /** The GPUs each job got this round. */
  gpus?: ReadonlyMap<string, readonly unknown[]>;
};

// The schema's bounds: at most 16 entries of 1-256 characters each.
const MAX_ENTRIES = 16;
const MAX_ENTRY = 256;

/**
 * The name a report gives the GPU source `gpu.source` selects: dcgm-exporter for `dcgm`, the
 * command's own name otherwise.
 *
 * @example
 * ```ts
 * gpuSourceName("dcgm"); // "dcgm-exporter"
 * ```
 */
export function gpuSourceName(configured: string): string {
  return configured === "dcgm" ? "dcgm-exporter" : configured;
}

/**
 * Tells the server, once per job and source, which source the collector read the job's data from
 * and what that source cannot see, as `source_limits` events attributed to the job: the GPU
 * source for a job that got GPU readings, cAdvisor for a pod it read, node_exporter for the job
 * alone on the node it read, cgroup v1 or /proc sums for a job read that way (cgroup v2 declares
 * nothing). Sent per job rather than once per node, so a diagnosis finds them however long after
 * the collector's start the job ran; each event's idempotency key stores it once per job, node and
 * source, so a restarted collector saying it again costs nothing.
 *
 * @example
 * ```ts
 * const limits = new SourceLimits({ cluster: "hpc1", cgroupVersion: "v2", gpu: { name: "dcgm-exporter", cannotSee } });
 * const events = limits.events({ time, usage, gpus: gpus.byJob });
 * ```
 */
export class SourceLimits {
  private readonly o: SourceLimitsOptions;
  // Sources already told per job; jobs absent from a round are forgotten.
  private said = new Map<string, Set<string>>();

  constructor(options: SourceLimitsOptions) {
    this.o = options;
  }

  /** The `source_limits` events of sources that fed a job this round and were not yet told for it. */
  events(round: SourceLimitsRound): NodeEvent[] {
    const out: NodeEvent[] = [];
    const said = new Map<string, Set<string>>();
    const { cgroupVersion, gpu, cadvisor, nodeExporter } = this.o;
    // node_exporter is asked only for a job alone on the node, and its status tells whether it answered.
    const exclusive = nodeExporter?.status === "running" && round.usage.size === 1;
    round.usage.forEach(({ node, dir }, jobId) => {
      const told = this.said.get(jobId) ?? new Set<string>();
      said.set(jobId, told);
      const tell = (name: string, reads: "gpu" | "usage", cannotSee: readonly string[]) => {
        if (told.has(name)) return;
        const event = this.event(round.time, node, jobId, name, reads, cannotSee);
        if (event) out.push(event);
        told.add(name);
      };
      if (gpu && (round.gpus?.get(jobId)?.length ?? 0) > 0) tell(gpu.name, "gpu", gpu.cannotSee);
      const byCadvisor = round.scraped?.has(jobId) === true;
      if (cadvisor && byCadvisor) tell("cadvisor", "usage", cadvisor.cannotSee);
      if (nodeExporter && exclusive) tell("node_exporter", "usage", nodeExporter.cannotSee);
      if (byCadvisor) return;
      if (cgroupVersion === "v1" && dir) tell("cgroup-v1", "usage", CGROUP_V1_CANNOT_SEE);
      // On a node it has alone, node_exporter's memory and CPU replace the /proc sums.
      if (cgroupVersion === "none" && !exclusive) tell("proc", "usage", PROC_SUMS_CANNOT_SEE);
    });
    this.said = said;
    return out;
  }

  private event(
    time: string,
    node: string,
    jobId: string,
    source: string,
    reads: "gpu" | "usage",
    declared: readonly string[],
  ): NodeEvent | undefined {
    const cannotSee = declared
      .map((s) => s.trim().slice(0, MAX_ENTRY))
      .filter((s) => s.length > 0)
      .slice(0, MAX_ENTRIES);
    if (cannotSee.length === 0) return undefined;
    return {
      cluster: this.o.cluster,
      node,
      time,
      kind: "source_limits",
      jobId,
      source: source.slice(0, 64),
      sourceLimits: { reads, cannotSee },
      message: `${source} cannot see: ${cannotSee.join("; ")}`.slice(0, 4096),
      idempotencyKey: `source-limits:${source}:${node}:${jobId}`
        .replace(/[^A-Za-z0-9._:-]/g, "_")
        .slice(0, 128),
    };
  }
}
