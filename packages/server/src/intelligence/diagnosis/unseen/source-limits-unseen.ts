import type { NodeEvent, Unseen } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { clip } from "../evidence.js";

type Reads = "gpu" | "usage";

/**
 * What each thing a source cannot see hides for a job, matched on the source's own words (the
 * collector's `cannotSee`); `null` marks a limit that cannot have touched the job. A limit no
 * pattern matches is still named, with a general consequence.
 */
const HIDES: Readonly<Record<Reads, readonly { match: RegExp; hides: string | null }[]>> = {
  gpu: [
    {
      match: /process/i,
      hides: "which of its processes used each GPU, and how much GPU memory each held, is unknown",
    },
    {
      match: /lost|bus/i,
      hides: "a GPU that dropped out shows only as missing readings, unless the kernel log names its Xid",
    },
    {
      match: /MIG|partition/i,
      hides: "on a partitioned (MIG) GPU the readings are the whole GPU's, not the job's share of it",
    },
  ],
  usage: [
    // node_exporter feeds a job only while it runs alone on the node.
    { match: /share the node/i, hides: null },
    { match: /pressure|PSI/i, hides: "whether it stalled waiting for CPU, memory or I/O cannot be judged" },
    { match: /buffered writes/i, hides: "writes the kernel flushed for it later are missing from its I/O" },
    { match: /exited/i, hides: "short-lived processes, and any memory they took, may have been missed" },
    {
      match: /kernel holds|page cache|\/dev\/shm/i,
      hides: "memory held for it outside its processes (page cache, /dev/shm) is not in its memory figures",
    },
    { match: /peak/i, hides: "a memory spike between two readings is missed" },
    { match: /daemons/i, hides: "its memory figures include the node's daemons and kernel" },
    { match: /limit/i, hides: "how close it came to a memory limit is unknown" },
    { match: /I\/O/, hides: "how much it read and wrote is unknown" },
  ],
};

const WHAT: Readonly<Record<Reads, string>> = { gpu: "GPU readings", usage: "usage readings" };
const FALLBACK: Readonly<Record<Reads, string>> = {
  gpu: "what its GPUs did in those respects is unknown",
  usage: "what it did in those respects is unknown",
};

/**
 * The limits of the sources the job's data came from (`source_limits` events from the node
 * collector), one entry per source and limit set, naming every node it applies to: a GPU source's
 * only on nodes where the job has GPU readings, a usage source's only on nodes where it has usage
 * samples.
 *
 * @example
 * ```ts
 * sourceLimitsUnseen(ctx);
 * // [{ source: "dcgm-exporter", reason: "The job's GPU readings on gpu07 came from dcgm-exporter, which cannot see processes on each GPU. For this job: which of its processes used each GPU, …" }]
 * ```
 */
export function sourceLimitsUnseen(ctx: RuleContext): Unseen[] {
  const groups = new Map<string, { source: string; reads: Reads; cannotSee: string[]; nodes: Set<string> }>();
  for (const e of limitEvents(ctx)) {
    const { reads, cannotSee } = e.sourceLimits!;
    const fed = reads === "gpu" ? ctx.gpuMetricNodes.has(e.node) : ctx.series.has(e.node);
    if (!fed) continue;
    const named = cannotSee.filter(
      (limit) => !HIDES[reads].some((h) => h.hides === null && h.match.test(limit)),
    );
    if (named.length === 0) continue;
    const key = JSON.stringify([e.source, reads, named]);
    const group = groups.get(key) ?? { source: e.source!, reads, cannotSee: named, nodes: new Set<string>() };
    group.nodes.add(e.node);
    groups.set(key, group);
  }
  const w = ctx.window;
  return [...groups.values()]
    .sort((a, b) => (a.reads === b.reads ? a.source.localeCompare(b.source) : a.reads === "gpu" ? -1 : 1))
    .map((g) => ({
      source: g.source,
      reason: clip(
        `The job's ${WHAT[g.reads]} on ${nodeList([...g.nodes].sort())} came from ${g.source}, which cannot see ${g.cannotSee.join("; ")}. For this job: ${hides(g.reads, g.cannotSee).join("; ")}.`,
        1024,
      ),
      ...(w ? { window: w } : {}),
    }));
}

/** The job's own `source_limits` events, and those on its nodes in its window that name no job. */
function limitEvents(ctx: RuleContext): NodeEvent[] {
  const onNodes = new Set(ctx.events);
  return ctx.input.events.filter(
    (e) =>
      e.kind === "source_limits" &&
      e.source !== undefined &&
      e.sourceLimits !== undefined &&
      e.sourceLimits.cannotSee.length > 0 &&
      (e.jobId === ctx.record.jobId || (e.jobId === undefined && onNodes.has(e))),
  );
}

function hides(reads: Reads, cannotSee: readonly string[]): string[] {
  const out = new Set<string>();
  for (const limit of cannotSee) {
    const matched = HIDES[reads].filter((h) => h.hides !== null && h.match.test(limit));
    if (matched.length === 0) out.add(FALLBACK[reads]);
    for (const h of matched) out.add(h.hides!);
  }
  return [...out];
}

/** `n1`, `n1 and n2`, `n1, n2 and n3`, or the first three and how many more. */
function nodeList(nodes: readonly string[]): string {
  if (nodes.length <= 1) return nodes[0] ?? "";
  if (nodes.length <= 3) return `${nodes.slice(0, -1).join(", ")} and ${nodes[nodes.length - 1]}`;
  return `${nodes.slice(0, 3).join(", ")} and ${nodes.length - 3} more nodes`;
}
