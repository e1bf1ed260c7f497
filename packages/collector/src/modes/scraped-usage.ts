import type { CgroupUsage } from "../sources/cgroup-usage.js";
import type { CadvisorSource } from "../sources/prometheus/cadvisor.js";
import type { NodeExporterSource } from "../sources/prometheus/node-exporter.js";

/** The Prometheus-format sources a node collector may scrape besides reading cgroups and /proc. */
export type ScrapedSources = {
  /** Per-pod usage from cAdvisor, in place of the pods' cgroups. @default none */
  cadvisor?: CadvisorSource;
  /** The node's usage from node_exporter, given to a job alone on the node. @default none */
  nodeExporter?: NodeExporterSource;
};

/** One round's reading of a job, as the node collector gathers them. */
export type RoundUsage = Map<string, { usage: CgroupUsage; node: string; dir?: string }>;

/** cAdvisor's reading of each pod replaces what the round read of it; pods only cAdvisor sees join. */
export function addCadvisorPods(usage: RoundUsage, scraped: Map<string, CgroupUsage>, node: string): void {
  scraped.forEach((u, uid) => {
    const had = usage.get(uid);
    usage.set(uid, { usage: u, node: had?.node ?? node, dir: had?.dir });
  });
}

/**
 * On a node exclusive to one job, node_exporter's figures fill what the job's own reading lacks
 * (load, CPU pressure); without cgroups they replace its /proc sums, which miss exited processes
 * and the memory the kernel holds for the job. Where jobs share the node nothing is recorded.
 */
export async function addNodeExporterUsage(
  usage: RoundUsage,
  nodeExporter: NodeExporterSource,
  fromCgroups: boolean,
): Promise<void> {
  if (usage.size !== 1) {
    nodeExporter.notExclusive();
    return;
  }
  const [[jobId, job]] = usage;
  const n = await nodeExporter.exclusiveJobUsage(jobId);
  if (!n) return;
  const own = job.usage;
  // The later spread wins: a job's own cgroup reading beats the node's, the node's beats /proc sums.
  const [first, second] = fromCgroups ? [n, own] : [own, n];
  const merged: CgroupUsage = { ...first, ...second };
  if (first.cpu || second.cpu)
    merged.cpu = { ...first.cpu, ...second.cpu } as NonNullable<CgroupUsage["cpu"]>;
  if (n.pressure || own.pressure) merged.pressure = { ...n.pressure, ...own.pressure };
  job.usage = merged;
}
