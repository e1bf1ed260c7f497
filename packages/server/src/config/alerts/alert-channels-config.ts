import type { ConfigReader } from "../config-reader.js";

/** E-mail of alerts and digests (`alerts.email`); see `options-alert-channels.ts` for the meanings. */
export type AlertEmailConfig = {
  smtp: {
    host: string;
    /** @default 587 */
    port: number;
    /** @default "starttls" */
    tls: "starttls" | "tls" | "none";
    /** @default undefined (no authentication) */
    user?: string;
    /** A credential: never logged. @default undefined */
    password?: string;
    /** @default 10000 */
    timeoutMs: number;
  };
  from: string;
  /** @default undefined (explicit addresses only) */
  domain?: string;
  /** Explicit addresses as `user=address`, checked. @default [] */
  addresses: string[];
  /** @default 30 */
  maxPerMinute: number;
  /** @default 6 */
  maxPerUserPerHour: number;
};

/** The alert channels beside the webhooks, and the weekly digest. */
export type AlertChannelsConfig = {
  /** @default undefined (no links) */
  publicUrl?: string;
  /** Absent without `alerts.email.smtp.host`: no mail. */
  email?: AlertEmailConfig;
  alertmanager: {
    /** Credentials possible: never logged. @default [] */
    urls: string[];
    /** @default 5000 */
    timeoutMs: number;
  };
  digest: {
    /** @default true */
    enabled: boolean;
    /** @default 7 */
    hourUtc: number;
    /** @default 5 */
    maxJobs: number;
  };
};

// Deliberately loose: the SMTP server judges an address; this catches a swapped or missing part.
const ADDRESS = /^[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+$/;
const DOMAIN = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const HTTP_URL = /^https?:\/\/[^\s]+$/;

/**
 * Reads `alerts.publicUrl`, `alerts.email`, `alerts.alertmanager` and `alerts.digest` from the
 * `alerts` reader; problems are reported on it as `path: message`.
 *
 * @example
 * ```ts
 * readAlertChannels(root.child("alerts")).alertmanager.urls; // []
 * ```
 */
export function readAlertChannels(r: ConfigReader): AlertChannelsConfig {
  const email = r.child("email");
  const smtp = email.child("smtp");
  const alertmanager = r.child("alertmanager");
  const digest = r.child("digest");
  const host = smtp.option("alerts.email.smtp.host");
  const config: AlertChannelsConfig = {
    publicUrl: r.option("alerts.publicUrl"),
    alertmanager: {
      urls: alertmanager.option("alerts.alertmanager.urls"),
      timeoutMs: alertmanager.option("alerts.alertmanager.timeoutMs"),
    },
    digest: {
      enabled: digest.option("alerts.digest.enabled"),
      hourUtc: digest.option("alerts.digest.hourUtc"),
      maxJobs: digest.option("alerts.digest.maxJobs"),
    },
  };
  const read: AlertEmailConfig = {
    smtp: {
      host: host ?? "",
      port: smtp.option("alerts.email.smtp.port"),
      tls: smtp.option("alerts.email.smtp.tls"),
      user: smtp.option("alerts.email.smtp.user"),
      password: smtp.option("alerts.email.smtp.password"),
      timeoutMs: smtp.option("alerts.email.smtp.timeoutMs"),
    },
    from: email.option("alerts.email.from") ?? "",
    domain: email.option("alerts.email.domain"),
    addresses: email.option("alerts.email.addresses"),
    maxPerMinute: email.option("alerts.email.maxPerMinute"),
    maxPerUserPerHour: email.option("alerts.email.maxPerUserPerHour"),
  };
  for (const reader of [smtp, email, alertmanager, digest]) reader.rejectUnknownKeys();
  if (host) {
    if (!read.from) email.issue("from", "is required when alerts.email.smtp.host is set");
    if (!read.domain && read.addresses.length === 0)
      email.issue("domain", "or alerts.email.addresses is required when alerts.email.smtp.host is set");
    config.email = read;
  }
  read.addresses.forEach((entry, i) => {
    const at = entry.indexOf("=");
    if (at <= 0 || !ADDRESS.test(entry.slice(at + 1).trim()))
      email.issue(`addresses[${i}]`, "must be user=address, e.g. alice=alice@lab.example.org");
  });
  if (read.domain && !DOMAIN.test(read.domain))
    email.issue("domain", "must be a domain name, e.g. lab.example.org");
  if (read.smtp.password && !read.smtp.user) smtp.issue("password", "needs alerts.email.smtp.user");
  if (config.publicUrl && !HTTP_URL.test(config.publicUrl)) r.issue("publicUrl", "must be an http(s) URL");
  // A URL may hold credentials: the message names its position, never its text.
  config.alertmanager.urls.forEach((url, i) => {
    if (!HTTP_URL.test(url)) alertmanager.issue(`urls[${i}]`, "must be an http(s) URL");
  });
  return config;
}
