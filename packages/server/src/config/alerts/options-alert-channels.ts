import type { OptionSpec } from "../option-spec.js";

/** The alert channels' options: e-mail over SMTP, Alertmanager, the weekly digest. */
export const alertChannelOptions = [
  {
    path: "alerts.publicUrl",
    type: "string",
    env: "JOBSIGHT_ALERTS_PUBLIC_URL",
    description:
      "The server's URL as users open it (e.g. https://jobsight.lab.example.org): alerts and digests link to the jobs' pages of the web report.",
  },
  {
    path: "alerts.email.smtp.host",
    type: "string",
    env: "JOBSIGHT_ALERTS_EMAIL_SMTP_HOST",
    description:
      "SMTP server that mails each job's user its alerts and the weekly digest; unset: no mail. Needs alerts.email.from and an address per user.",
  },
  {
    path: "alerts.email.smtp.port",
    type: "integer",
    env: "JOBSIGHT_ALERTS_EMAIL_SMTP_PORT",
    default: 587,
    min: 1,
    max: 65535,
    description: "SMTP port (587 submission with STARTTLS, 465 with tls, 25 relay).",
  },
  {
    path: "alerts.email.smtp.tls",
    type: "enum",
    env: "JOBSIGHT_ALERTS_EMAIL_SMTP_TLS",
    values: ["starttls", "tls", "none"],
    default: "starttls",
    description:
      "starttls: upgrade the connection, refusing a server that cannot; tls: TLS from the start; none: plain text (a relay on the same host only).",
  },
  {
    path: "alerts.email.smtp.user",
    type: "string",
    env: "JOBSIGHT_ALERTS_EMAIL_SMTP_USER",
    description: "SMTP AUTH user; unset: no authentication.",
  },
  {
    path: "alerts.email.smtp.password",
    type: "string",
    env: "JOBSIGHT_ALERTS_EMAIL_SMTP_PASSWORD",
    secret: true,
    description: "SMTP AUTH password (set it in the environment or a file only its owner reads).",
  },
  {
    path: "alerts.email.smtp.timeoutMs",
    type: "integer",
    env: "JOBSIGHT_ALERTS_EMAIL_SMTP_TIMEOUT_MS",
    default: 10_000,
    min: 100,
    max: 120_000,
    description:
      "Deadline of connecting and of each SMTP reply; a failed mail is retried later with back-off.",
  },
  {
    path: "alerts.email.from",
    type: "string",
    env: "JOBSIGHT_ALERTS_EMAIL_FROM",
    description: "The From: of the mails, e.g. Jobsight <jobsight@lab.example.org>. Required with a host.",
  },
  {
    path: "alerts.email.domain",
    type: "string",
    env: "JOBSIGHT_ALERTS_EMAIL_DOMAIN",
    description:
      "A user without an explicit address gets mail at <user>@<domain>; unset: only alerts.email.addresses.",
  },
  {
    path: "alerts.email.addresses",
    type: "list",
    env: "JOBSIGHT_ALERTS_EMAIL_ADDRESSES",
    default: [],
    description:
      "Explicit addresses as user=address (e.g. alice=alice@physics.example.org); they win over the domain.",
  },
  {
    path: "alerts.email.maxPerMinute",
    type: "integer",
    env: "JOBSIGHT_ALERTS_EMAIL_MAX_PER_MINUTE",
    default: 30,
    min: 1,
    max: 6000,
    description: "Most mails in any minute, all users together; the others go at later evaluations.",
  },
  {
    path: "alerts.email.maxPerUserPerHour",
    type: "integer",
    env: "JOBSIGHT_ALERTS_EMAIL_MAX_PER_USER_PER_HOUR",
    default: 6,
    min: 1,
    max: 600,
    description:
      "Most alert mails one user gets in any hour; the others wait, and are not sent if they resolve first.",
  },
  {
    path: "alerts.alertmanager.urls",
    type: "list",
    env: "JOBSIGHT_ALERTS_ALERTMANAGER_URLS",
    default: [],
    secret: true,
    description:
      "Alertmanager base URLs (every member of an HA cluster): firing alerts are posted to /api/v2/alerts at each evaluation, resolved ones with their end.",
  },
  {
    path: "alerts.alertmanager.timeoutMs",
    type: "integer",
    env: "JOBSIGHT_ALERTS_ALERTMANAGER_TIMEOUT_MS",
    default: 5000,
    min: 100,
    max: 60_000,
    description: "Deadline of one POST to Alertmanager; a failed one is sent again at the next evaluation.",
  },
  {
    path: "alerts.digest.enabled",
    type: "boolean",
    env: "JOBSIGHT_ALERTS_DIGEST_ENABLED",
    default: true,
    description:
      "Mail each user (with e-mail configured) a weekly digest: efficiency, waste and the edits that would have saved it.",
  },
  {
    path: "alerts.digest.hourUtc",
    type: "integer",
    env: "JOBSIGHT_ALERTS_DIGEST_HOUR_UTC",
    default: 7,
    min: 0,
    max: 23,
    description:
      "The hour (UTC) of Monday from which the past week's digests are sent (users in quiet hours get theirs after).",
  },
  {
    path: "alerts.digest.maxJobs",
    type: "integer",
    env: "JOBSIGHT_ALERTS_DIGEST_MAX_JOBS",
    default: 5,
    min: 0,
    max: 50,
    description: "Most wasteful jobs each digest lists with their edits.",
  },
] as const satisfies readonly OptionSpec[];
