import type { Alert } from "@jobsight/schemas";

/** A Slack incoming-webhook message, which Mattermost (and most chat tools' Slack-compatible hooks) accept too. */
export type ChatPayload = {
  text: string;
  attachments: {
    fallback: string;
    color: string;
    title: string;
    text: string;
    fields: { title: string; value: string; short: boolean }[];
    footer: string;
    ts: number;
  }[];
};

const COLORS: Record<Alert["severity"], string> = { critical: "#d0021b", warning: "#f5a623" };

/** The evidence lines shown in the message; the API has them all. */
const EVIDENCE_LINES = 3;

/**
 * The chat message of an alert that started firing: a one-line `text` (what notifications show)
 * and one attachment with the message, where it runs, and the first pieces of evidence.
 *
 * @example
 * ```ts
 * await fetch(url, { method: "POST", body: JSON.stringify(chatPayload(alert)), headers: { "content-type": "application/json" } });
 * ```
 */
export function chatPayload(alert: Alert): ChatPayload {
  const title = `${alert.rule} on job ${alert.jobId} (${alert.cluster}, ${alert.user})`;
  const evidence = alert.evidence.slice(0, EVIDENCE_LINES).map((e) => `• ${e.text}`);
  const more = alert.evidence.length - evidence.length;
  if (more > 0) evidence.push(`• and ${more} more in GET /v1/alerts`);
  const fields = [
    { title: "Cluster", value: alert.cluster, short: true },
    { title: "Job", value: alert.jobId, short: true },
    { title: "User", value: alert.user, short: true },
    { title: "Severity", value: alert.severity, short: true },
    { title: "Since", value: alert.firstSeen, short: true },
  ];
  if (alert.projectedAt) fields.push({ title: "Limit reached at", value: alert.projectedAt, short: true });
  return {
    text: `[${alert.severity.toUpperCase()}] ${title}: ${alert.message}`,
    attachments: [
      {
        fallback: `${title}: ${alert.message}`,
        color: COLORS[alert.severity],
        title,
        text: [alert.message, ...evidence].join("\n"),
        fields,
        footer: "Jobsight live alerts",
        ts: Math.floor(Date.parse(alert.lastSeen) / 1000),
      },
    ],
  };
}
