import type { EvidenceRef, Finding, NodeEvent } from "@jobsight/schemas";
import type { RuleContext } from "../../context.js";
import { eventEvidence } from "../../evidence.js";
import { ms } from "../../explain/format.js";
import { normalisePciBusId, type XidClass, xidInfo } from "../../xid-catalogue.js";
import { type DiagnosisRule, NOTHING } from "../rule.js";
import { eventPci, type GpuLoss, gpuLosses } from "./gpu-losses.js";

/** Events quoted per finding; a faulting kernel can log the same Xid hundreds of times. */
const MAX_QUOTED = 8;

interface Attributed {
  readonly event: NodeEvent;
  readonly cls: XidClass | "unknown";
  /** False when the event could not be matched to the job's GPUs (no GPU metrics to match with). */
  readonly matched: boolean;
  readonly gpu: string;
}

/**
 * GPU fault: NVIDIA Xid events and GPUs nvidia-smi found lost on the job's GPUs during the job,
 * split into application errors (the job's GPU code) and hardware or driver faults (the node).
 * A GPU reported lost by nvidia-smi and by the kernel's Xid is one loss, counted once. Xid 45
 * alone is the clean-up after a process ended and is not reported.
 */
export const gpuFaultRule: DiagnosisRule = {
  name: "gpu-fault",
  evaluate(ctx) {
    const all = attribute(ctx);
    if (all.length === 0) return NOTHING;
    const by = new Map(all.map((a) => [a.event, a]));
    const { losses, rest } = gpuLosses(
      all.map((a) => a.event),
      ctx.thresholds.gpuLossWindowSeconds,
    );
    const xids = rest.map((e) => by.get(e)!);
    const hw = xids.filter((x) => x.cls === "hardware" || x.cls === "unknown");
    const app = xids.filter((x) => x.cls === "application");
    const findings: Finding[] = [];
    if (hw.length > 0 || losses.length > 0) findings.push(hardwareFinding(ctx, hw, losses, by));
    if (app.length > 0) findings.push(applicationFinding(ctx, app, hw.length > 0 || losses.length > 0));
    return { findings };
  },
};

function attribute(ctx: RuleContext): Attributed[] {
  const out: Attributed[] = [];
  for (const e of ctx.events) {
    if (e.kind === "gpu_xid" && !e.xid) continue;
    if (e.kind === "gpu_lost" && !e.gpuLost) continue;
    if (e.kind !== "gpu_xid" && e.kind !== "gpu_lost") continue;
    const cls = e.kind === "gpu_lost" ? "hardware" : (xidInfo(e.xid!.code)?.class ?? "unknown");
    if (cls === "follow-on") continue;
    const pci = eventPci(e);
    const printed = e.kind === "gpu_lost" ? e.gpuLost!.pciBusId : e.xid!.pciBusId;
    const jobGpus = new Map<string, number>();
    for (const s of ctx.series.get(e.node) ?? []) {
      for (const g of s.gpus ?? []) {
        const id = g.pciBusId ? normalisePciBusId(g.pciBusId) : undefined;
        if (id) jobGpus.set(id, g.index);
      }
    }
    const pid = e.xid?.pid;
    const pidOfJob =
      e.kind === "gpu_xid" &&
      pid !== undefined &&
      (ctx.series.get(e.node) ?? []).some((s) => s.processes?.some((p) => p.pid === pid));
    const index = pci !== undefined ? jobGpus.get(pci) : undefined;
    let matched: boolean;
    if (jobGpus.size > 0) {
      // The job's GPUs are known: a fault on another GPU of the node belongs to someone else.
      if (index === undefined && !pidOfJob) continue;
      matched = true;
    } else {
      if (e.jobId !== ctx.record.jobId && !pidOfJob && ctx.gpusReserved === 0) continue;
      matched = e.jobId === ctx.record.jobId || pidOfJob;
    }
    const known = index ?? e.gpuLost?.index;
    const gpu = known !== undefined ? `GPU ${known} (${printed})` : `GPU ${printed}`;
    out.push({ event: e, cls, matched, gpu });
  }
  return out;
}

function quote(xs: readonly Attributed[], describe: (x: Attributed) => string): EvidenceRef[] {
  const picked = xs.length <= MAX_QUOTED ? xs : [...xs.slice(0, MAX_QUOTED - 1), xs[xs.length - 1]];
  return picked.map((x) => eventEvidence(x.event, describe(x)));
}

function summarise(xs: readonly Attributed[]): string {
  const byCode = new Map<number, { n: number; x: Attributed }>();
  for (const x of xs) {
    const c = x.event.xid!.code;
    const cur = byCode.get(c);
    byCode.set(c, { n: (cur?.n ?? 0) + 1, x: cur?.x ?? x });
  }
  return [...byCode.entries()]
    .map(([code, { n, x }]) => {
      const name = xidInfo(code)?.name ?? "not in Jobsight's Xid catalogue";
      return `Xid ${code} (${name})${n > 1 ? ` ${n} times` : ""} on ${x.event.node} ${x.gpu}`;
    })
    .join("; ");
}

/** One loss in words: which GPU, when, and what each source said of it. */
function describeLoss(ctx: RuleContext, loss: GpuLoss, by: ReadonlyMap<NodeEvent, Attributed>): string {
  // The kernel's spelling of the address where it logged one, as the Xid lines quoted beside it.
  const gpu = by.get(loss.xids[0] ?? loss.lost[0])!.gpu;
  const said: string[] = [];
  if (loss.xids.length > 0) {
    const codes = [...new Set(loss.xids.map((e) => e.xid!.code))];
    said.push(
      `the kernel logged ${codes
        .map((c) => {
          const n = loss.xids.filter((e) => e.xid!.code === c).length;
          return `Xid ${c} (${xidInfo(c)?.name ?? "not in Jobsight's Xid catalogue"})${n > 1 ? ` ${n} times` : ""}`;
        })
        .join(", ")}`,
    );
  } else {
    said.push(
      ctx.kernelLogUnreadable.has(loss.node)
        ? `no Xid was seen (the kernel log of ${loss.node} was not read)`
        : "the kernel logged no Xid for it",
    );
  }
  const smi = loss.lost[0].gpuLost!;
  said.push(
    `nvidia-smi could no longer reach it ("${smi.reason}"${smi.exitCode !== undefined ? `, exit status ${smi.exitCode}` : ""})`,
  );
  return `${gpu} on ${loss.node} was lost at ${loss.time}: ${said.join(" and ")}`;
}

function hardwareFinding(
  ctx: RuleContext,
  xs: readonly Attributed[],
  losses: readonly GpuLoss[],
  by: ReadonlyMap<NodeEvent, Attributed>,
): Finding {
  const lossXids = losses.flatMap((l) => l.xids.map((e) => by.get(e)!));
  const known = [...lossXids, ...xs].filter((x) => x.cls === "hardware" && x.event.kind === "gpu_xid");
  const involved = [...losses.flatMap((l) => [...l.xids, ...l.lost].map((e) => by.get(e)!)), ...xs];
  const unmatched = involved.some((x) => !x.matched);
  const first = involved.map((x) => x.event).reduce((a, b) => (ms(b.time) < ms(a.time) ? b : a));
  const meaning =
    known.length > 0
      ? xidInfo(known[0].event.xid!.code)!.meaning
      : losses.length > 0
        ? "the GPU stopped answering the driver"
        : "an Xid Jobsight does not classify";
  const parts = [...losses.map((l) => describeLoss(ctx, l, by)), ...(xs.length > 0 ? [summarise(xs)] : [])];
  const lostCount =
    losses.length > 0 ? ` ${losses.length === 1 ? "One GPU was" : `${losses.length} GPUs were`} lost.` : "";
  const claim =
    // A loss says when it happened; "first at" is for Xids beside it, or alone.
    `The GPU reported a hardware or driver fault during the job: ${parts.join("; ")}${xs.length > 0 ? `, first at ${first.time}` : ""} (${meaning}).${lostCount} ` +
    "This points at the node, not at the job's code." +
    (ctx.failed ? " The job's failure is most likely a consequence." : "") +
    (unmatched ? " Without GPU metrics the fault could not be matched to one of the job's GPUs." : "");
  const base = known.length > 0 || losses.length > 0 ? 0.9 : 0.4;
  const describe = (x: Attributed) =>
    x.event.kind === "gpu_lost"
      ? `nvidia-smi found ${x.gpu} on ${x.event.node} lost at ${x.event.time}.`
      : `Xid ${x.event.xid!.code} on ${x.event.node} ${x.gpu} at ${x.event.time}.`;
  // Each loss cited once per source (its first Xid and its first nvidia-smi report), then the rest.
  const cited = [...losses.flatMap((l) => [...l.xids.slice(0, 1), l.lost[0]].map((e) => by.get(e)!)), ...xs];
  return {
    kind: "gpu_fault_hardware",
    severity: ctx.failed && (known.length > 0 || losses.length > 0) ? "error" : "warning",
    claim: claim.slice(0, 2048),
    confidence: unmatched ? base - 0.25 : base,
    evidence: quote(cited, describe),
  };
}

function applicationFinding(ctx: RuleContext, xs: readonly Attributed[], afterHardware: boolean): Finding {
  const procs = [
    ...new Set(
      xs
        .filter((x) => x.event.xid!.processName)
        .map((x) => `${x.event.xid!.processName} (pid ${x.event.xid!.pid})`),
    ),
  ];
  const meaning = xidInfo(xs[0].event.xid!.code)!.meaning;
  const unmatched = xs.some((x) => !x.matched);
  const claim =
    `The GPU reported errors caused by the job's own GPU code: ${summarise(xs)}, first at ${xs[0].event.time}` +
    `${procs.length ? `, raised by ${procs.join(", ")}` : ""}: ${meaning}. ` +
    (afterHardware
      ? "They came alongside a hardware fault on the same job and may be its consequence."
      : "These come from the application (its kernels or the libraries it calls), not from the node.") +
    (unmatched ? " Without GPU metrics the errors could not be matched to one of the job's GPUs." : "");
  const base = afterHardware ? 0.5 : 0.85;
  return {
    kind: "gpu_fault_application",
    severity: ctx.failed && !afterHardware ? "error" : "warning",
    claim: claim.slice(0, 2048),
    confidence: unmatched ? base - 0.25 : base,
    evidence: quote(xs, (x) => `Xid ${x.event.xid!.code} on ${x.event.node} ${x.gpu} at ${x.event.time}.`),
  };
}
