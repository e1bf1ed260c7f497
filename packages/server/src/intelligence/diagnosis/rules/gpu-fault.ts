import type { EvidenceRef, Finding, NodeEvent } from "@jobsight/schemas";
import type { RuleContext } from "../context.js";
import { eventEvidence } from "../evidence.js";
import { normalisePciBusId, type XidClass, xidInfo } from "../xid-catalogue.js";
import { type DiagnosisRule, NOTHING } from "./rule.js";

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
 * GPU fault: NVIDIA Xid events on the job's GPUs during the job, split into application errors
 * (the job's GPU code) and hardware or driver faults (the node). Xid 45 alone is the clean-up
 * after a process ended and is not reported.
 */
export const gpuFaultRule: DiagnosisRule = {
  name: "gpu-fault",
  evaluate(ctx) {
    const xids = attribute(ctx);
    if (xids.length === 0) return NOTHING;
    const hw = xids.filter((x) => x.cls === "hardware" || x.cls === "unknown");
    const app = xids.filter((x) => x.cls === "application");
    const findings: Finding[] = [];
    if (hw.length > 0) findings.push(hardwareFinding(ctx, hw));
    if (app.length > 0) findings.push(applicationFinding(ctx, app, hw.length > 0));
    return { findings };
  },
};

function attribute(ctx: RuleContext): Attributed[] {
  const out: Attributed[] = [];
  for (const e of ctx.events) {
    if (e.kind !== "gpu_xid" || !e.xid) continue;
    const info = xidInfo(e.xid.code);
    const cls = info?.class ?? "unknown";
    if (cls === "follow-on") continue;
    const pci = normalisePciBusId(e.xid.pciBusId);
    const jobGpus = new Map<string, number>();
    for (const s of ctx.series.get(e.node) ?? []) {
      for (const g of s.gpus ?? []) {
        const id = g.pciBusId ? normalisePciBusId(g.pciBusId) : undefined;
        if (id) jobGpus.set(id, g.index);
      }
    }
    const pidOfJob =
      e.xid.pid !== undefined &&
      (ctx.series.get(e.node) ?? []).some((s) => s.processes?.some((p) => p.pid === e.xid!.pid));
    const index = pci !== undefined ? jobGpus.get(pci) : undefined;
    let matched: boolean;
    if (jobGpus.size > 0) {
      // The job's GPUs are known: an Xid on another GPU of the node belongs to someone else.
      if (index === undefined && !pidOfJob) continue;
      matched = true;
    } else {
      if (e.jobId !== ctx.record.jobId && !pidOfJob && ctx.gpusReserved === 0) continue;
      matched = e.jobId === ctx.record.jobId || pidOfJob;
    }
    const gpu = index !== undefined ? `GPU ${index} (${e.xid.pciBusId})` : `GPU ${e.xid.pciBusId}`;
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

function hardwareFinding(ctx: RuleContext, xs: readonly Attributed[]): Finding {
  const known = xs.filter((x) => x.cls === "hardware");
  const unmatched = xs.some((x) => !x.matched);
  const first = xs[0].event;
  const meaning =
    known.length > 0 ? xidInfo(known[0].event.xid!.code)!.meaning : "an Xid Jobsight does not classify";
  const claim =
    `The GPU reported a hardware or driver fault during the job: ${summarise(xs)}, first at ${first.time} (${meaning}). ` +
    "This points at the node, not at the job's code." +
    (ctx.failed ? " The job's failure is most likely a consequence." : "") +
    (unmatched ? " Without GPU metrics the fault could not be matched to one of the job's GPUs." : "");
  const base = known.length > 0 ? 0.9 : 0.4;
  return {
    kind: "gpu_fault_hardware",
    severity: ctx.failed && known.length > 0 ? "error" : "warning",
    claim: claim.slice(0, 2048),
    confidence: unmatched ? base - 0.25 : base,
    evidence: quote(xs, (x) => `Xid ${x.event.xid!.code} on ${x.event.node} ${x.gpu} at ${x.event.time}.`),
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
