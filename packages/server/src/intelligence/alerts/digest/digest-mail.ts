import { formatCost } from "../../cost/format-money.js";
import { jobPageUrl } from "../channels/alert-mail.js";
import type { MailMessage } from "../channels/smtp-transport.js";
import type { DigestEdit } from "./submission-edits.js";
import type { DigestJob, UserDigest } from "./weekly-digest.js";

const GIB = 2 ** 30;

const hours = (h: number) => (h >= 100 ? h.toFixed(0) : h.toFixed(1));
const percent = (used: number, reserved: number) =>
  reserved > 0 ? `${Math.round((100 * used) / reserved)}%` : "n/a";

function amount(resource: DigestEdit["resource"], value: number): string {
  switch (resource) {
    case "memory":
      return `${(value / GIB).toFixed(value >= 10 * GIB ? 0 : 1)} GiB`;
    case "cores":
      return `${value} cores`;
    case "gpus":
      return `${value} GPUs`;
    case "walltime":
      return `${Math.floor(value / 3600)}:${String(Math.floor((value % 3600) / 60)).padStart(2, "0")} h`;
  }
}

// What the edits would have freed, and its price when the site set rates.
function savedLine(job: DigestJob, currency: string | undefined): string | undefined {
  const { coreHours, memoryGibHours, gpuHours } = job.saved;
  const parts = [
    coreHours > 0 ? `${hours(coreHours)} core-hours` : undefined,
    memoryGibHours > 0 ? `${hours(memoryGibHours)} GiB-hours` : undefined,
    gpuHours > 0 ? `${hours(gpuHours)} GPU-hours` : undefined,
  ].filter((x) => x !== undefined);
  if (parts.length === 0) return undefined;
  const money = job.savedCost && currency ? `: ${formatCost(job.savedCost, currency)}` : "";
  return `These edits would have saved ${parts.join(", ")}${money}.`;
}

/**
 * The weekly digest as a mail: efficiency (used of reserved, per resource), waste (hours reserved
 * and unused, idle by the samples, and their price when the site set rates), and the user's most
 * wasteful jobs with the edits the advice asked for and what they would have saved.
 *
 * @example
 * ```ts
 * await mailer.send(digestMail(digest, "alice@lab.example.org", "https://jobsight.lab.example.org"));
 * ```
 */
export function digestMail(d: UserDigest, to: string, publicUrl?: string): MailMessage {
  const day = (iso: string) => iso.slice(0, 10);
  const lastDay = day(new Date(Date.parse(d.week.end) - 1).toISOString());
  const lines = [
    `Your jobs from ${day(d.week.start)} to ${lastDay} (UTC): ${d.jobs} ended.`,
    "",
    "Efficiency (used of reserved):",
    `  Cores:  ${percent(d.cores.usedHours, d.cores.reservedHours)} — ${hours(d.cores.usedHours)} of ${hours(d.cores.reservedHours)} core-hours`,
    `  Memory: ${percent(d.memory.usedGiBHours, d.memory.reservedGiBHours)} — ${hours(d.memory.usedGiBHours)} of ${hours(d.memory.reservedGiBHours)} GiB-hours`,
  ];
  if (d.gpus.reservedHours > 0)
    lines.push(
      `  GPUs:   ${percent(d.gpus.usedHours, d.gpus.reservedHours)} — ${hours(d.gpus.usedHours)} of ${hours(d.gpus.reservedHours)} GPU-hours`,
    );
  lines.push(
    "",
    "Waste (reserved, not used):",
    `  ${hours(Math.max(0, d.cores.reservedHours - d.cores.usedHours))} core-hours, ${hours(Math.max(0, d.memory.reservedGiBHours - d.memory.usedGiBHours))} GiB-hours of memory` +
      (d.gpus.reservedHours > 0
        ? `, ${hours(Math.max(0, d.gpus.reservedHours - d.gpus.usedHours))} GPU-hours`
        : ""),
  );
  const idle = [
    d.idleCoreHours !== undefined ? `${hours(d.idleCoreHours)} core-hours` : undefined,
    d.idleGpuHours !== undefined ? `${hours(d.idleGpuHours)} GPU-hours` : undefined,
  ].filter((x) => x !== undefined);
  if (idle.length > 0) lines.push(`  Idle by the samples: ${idle.join(", ")}`);
  if (d.cost) {
    lines.push(`  In money: ${formatCost(d.cost.unused, d.cost.currency)} unused`);
    if (d.cost.idle)
      lines.push(`  Idle by the samples, in money: ${formatCost(d.cost.idle, d.cost.currency)}`);
  }
  if (d.worstJobs.length > 0) {
    lines.push("", "The jobs that wasted most, and the edits that would have saved it:");
    for (const job of d.worstJobs) {
      lines.push(
        `  Job ${job.jobId} on ${job.cluster}: ${hours(job.unusedCoreHours)} core-hours, ${hours(job.unusedMemoryGiBHours)} GiB-hours` +
          (job.unusedGpuHours > 0 ? `, ${hours(job.unusedGpuHours)} GPU-hours` : "") +
          " unused",
      );
      if (job.edits.length === 0) lines.push("    (no advice recorded for this submission asked for less)");
      for (const e of job.edits)
        lines.push(
          `    ${e.resource}: ${amount(e.resource, e.requested)} → ${amount(e.resource, e.advised)}`,
        );
      const saved = savedLine(job, d.cost?.currency);
      if (saved) lines.push(`    ${saved}`);
      const link = jobPageUrl(publicUrl, job.cluster, job.jobId);
      if (link) lines.push(`    ${link}`);
    }
  }
  lines.push(
    "",
    "You get this weekly digest about your own jobs. Turn it off with PUT /v1/alerts/preferences",
    '({"digest": false}, or client.alerts.preferences.set in the SDK).',
  );
  return {
    to,
    subject: `[Jobsight] Your week: cores ${percent(d.cores.usedHours, d.cores.reservedHours)} used, ${d.jobs} jobs`,
    text: lines.join("\n"),
    headers: { "X-Jobsight-Digest": `${d.user}/${day(d.week.start)}` },
  };
}
