import type { NodeEvent } from "@jobsight/schemas";
import { ms } from "../../explain/format.js";
import { normalisePciBusId, xidInfo } from "../../xid-catalogue.js";

/**
 * One GPU lost, however many times and through whichever source it was reported: nvidia-smi's
 * `gpu_lost` events and the kernel's hardware Xids for the same GPU close in time are one fault.
 */
export interface GpuLoss {
  readonly node: string;
  /** The GPU's PCI address as `dddd:bb:dd`. */
  readonly pci: string;
  /** nvidia-smi's reports of the GPU lost, earliest first (at least one). */
  readonly lost: readonly NodeEvent[];
  /** The kernel's hardware Xids for the GPU around the loss, earliest first. */
  readonly xids: readonly NodeEvent[];
  /** When the loss was first reported, by either source. */
  readonly time: string;
}

/** The PCI address an Xid or a lost GPU names, as `dddd:bb:dd`. */
export function eventPci(e: NodeEvent): string | undefined {
  const raw = e.kind === "gpu_lost" ? (e.gpuLost?.pciBusId ?? e.xid?.pciBusId) : e.xid?.pciBusId;
  return raw === undefined ? undefined : normalisePciBusId(raw);
}

/** An Xid that may be the kernel's side of a GPU loss: anything but the job's own errors and clean-up. */
function hardwareXid(e: NodeEvent): boolean {
  if (e.kind !== "gpu_xid" || !e.xid) return false;
  const cls = xidInfo(e.xid.code)?.class;
  return cls !== "application" && cls !== "follow-on";
}

/**
 * Groups reports of lost GPUs into losses: `gpu_lost` events of one GPU on one node within
 * `windowSeconds` of each other are one loss, and a hardware Xid on that GPU within `windowSeconds`
 * of the loss is the kernel's report of it (an Xid 79 is logged as the GPU falls off the bus,
 * nvidia-smi notices at its next reading). Returns the losses and every other event, untouched,
 * so a loss reported by both nvidia-smi and the kernel is counted once.
 *
 * @example
 * ```ts
 * const { losses, rest } = gpuLosses([xid79, nvidiaSmiLost], 3600);
 * losses.length; // 1
 * losses[0].xids[0].xid?.code; // 79
 * ```
 */
export function gpuLosses(
  events: readonly NodeEvent[],
  windowSeconds: number,
): { losses: GpuLoss[]; rest: NodeEvent[] } {
  const window = windowSeconds * 1000;
  const sorted = [...events].sort((a, b) => ms(a.time) - ms(b.time));
  const groups: {
    node: string;
    pci: string;
    lost: NodeEvent[];
    xids: NodeEvent[];
    from: number;
    to: number;
  }[] = [];
  const near = (g: (typeof groups)[number], t: number) => t >= g.from - window && t <= g.to + window;
  for (const e of sorted) {
    const pci = eventPci(e);
    if (e.kind !== "gpu_lost" || pci === undefined) continue;
    const t = ms(e.time);
    const g = groups.find((x) => x.node === e.node && x.pci === pci && near(x, t));
    if (g) {
      g.lost.push(e);
      g.to = Math.max(g.to, t);
    } else groups.push({ node: e.node, pci, lost: [e], xids: [], from: t, to: t });
  }
  const rest: NodeEvent[] = [];
  for (const e of sorted) {
    if (e.kind === "gpu_lost" && eventPci(e) !== undefined) continue;
    const pci = eventPci(e);
    const g =
      pci !== undefined && hardwareXid(e)
        ? groups.find((x) => x.node === e.node && x.pci === pci && near(x, ms(e.time)))
        : undefined;
    if (g) g.xids.push(e);
    else rest.push(e);
  }
  const losses = groups.map((g) => {
    const first = [...g.xids, ...g.lost].reduce((a, b) => (ms(b.time) < ms(a.time) ? b : a));
    return { node: g.node, pci: g.pci, lost: g.lost, xids: g.xids, time: first.time };
  });
  return { losses, rest };
}
