import type { Alert } from "@jobsight/schemas";
import { jobPageUrl } from "./alert-mail.js";

/** One alert as Alertmanager's `POST /api/v2/alerts` takes it (`postableAlert`). */
export type PostableAlert = {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
};

/** Evidence lines in the description; the API has them all. */
const EVIDENCE_LINES = 5;

/**
 * An alert as Alertmanager takes it. The labels identify it (Alertmanager deduplicates on them):
 * `alertname` (the rule), `cluster`, `job_id`, `user`, `severity`, `source="jobsight"`. The
 * annotations say what holds (`summary`), on what evidence (`description`) and where to look
 * (`evidence`: the job's page, or the API query). A firing alert is valid until `validUntil`
 * (it is sent again before then while it fires); a resolved one ends when it resolved.
 *
 * @example
 * ```ts
 * const body = alerts.map((a) => postableAlert(a, new Date(Date.now() + 240_000)));
 * ```
 */
export function postableAlert(alert: Alert, validUntil: Date, publicUrl?: string): PostableAlert {
  const link = jobPageUrl(publicUrl, alert.cluster, alert.jobId);
  const query = new URLSearchParams({ cluster: alert.cluster, user: alert.user });
  const evidence = alert.evidence.slice(0, EVIDENCE_LINES).map((e) => `- ${e.text}`);
  if (alert.evidence.length > EVIDENCE_LINES)
    evidence.push(`- and ${alert.evidence.length - EVIDENCE_LINES} more`);
  const posted: PostableAlert = {
    labels: {
      alertname: alert.rule,
      cluster: alert.cluster,
      job_id: alert.jobId,
      user: alert.user,
      severity: alert.severity,
      source: "jobsight",
    },
    annotations: {
      summary: alert.message,
      description: evidence.join("\n"),
      evidence: link ?? `GET /v1/alerts?${query}`,
    },
    startsAt: alert.firstSeen,
    endsAt: alert.state === "resolved" && alert.resolvedAt ? alert.resolvedAt : validUntil.toISOString(),
  };
  if (alert.projectedAt) posted.annotations.projected_at = alert.projectedAt;
  if (link) posted.generatorURL = link;
  return posted;
}
