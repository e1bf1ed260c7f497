import type { Alert } from "@jobsight/schemas";
import type { MailMessage } from "./smtp-transport.js";

/**
 * The link to a job's page of the web report, when the server's public URL is known.
 *
 * @example
 * ```ts
 * jobPageUrl("https://jobsight.lab.example.org", "hpc1", "4242"); // "https://jobsight.lab.example.org/report/jobs.html?id=4242&cluster=hpc1"
 * ```
 */
export function jobPageUrl(
  publicUrl: string | undefined,
  cluster: string,
  jobId: string,
): string | undefined {
  if (!publicUrl) return undefined;
  const query = new URLSearchParams({ id: jobId, cluster });
  return `${publicUrl.replace(/\/+$/, "")}/report/jobs.html?${query}`;
}

/**
 * The mail telling a user an alert about their job started firing: what holds, where, since when,
 * every piece of evidence, and a link to the job's page.
 *
 * @example
 * ```ts
 * await mailer.send(alertMail(alert, "alice@lab.example.org", "https://jobsight.lab.example.org"));
 * ```
 */
export function alertMail(alert: Alert, to: string, publicUrl?: string): MailMessage {
  const link = jobPageUrl(publicUrl, alert.cluster, alert.jobId);
  const lines = [
    `${alert.message}`,
    "",
    `Job:      ${alert.jobId} on ${alert.cluster}`,
    `Rule:     ${alert.rule} (${alert.severity})`,
    `Since:    ${alert.firstSeen}`,
  ];
  if (alert.projectedAt) lines.push(`Limit at: ${alert.projectedAt}`);
  lines.push("", "Evidence:", ...alert.evidence.map((e) => `  - ${e.text}`));
  if (link) lines.push("", `The job's page: ${link}`);
  lines.push(
    "",
    "You get this mail because the job is yours. Opt out, choose channels or set quiet hours with",
    "PUT /v1/alerts/preferences (or: jobsight alerts preferences --help).",
  );
  return {
    to,
    subject: `[Jobsight ${alert.severity}] ${alert.rule} on job ${alert.jobId} (${alert.cluster})`,
    text: lines.join("\n"),
    headers: { "X-Jobsight-Alert": alert.id },
  };
}
