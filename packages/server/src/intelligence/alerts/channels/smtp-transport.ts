import nodemailer from "nodemailer";

/** A mail to send: plain text, one recipient. */
export type MailMessage = { to: string; subject: string; text: string; headers?: Record<string, string> };

/** What sends mail: nodemailer's SMTP transport, or a test double. */
export type Mailer = {
  send(message: MailMessage): Promise<void>;
};

/** Options of {@link smtpMailer}. */
export type SmtpMailerOptions = {
  host: string;
  /** @default 587 */
  port?: number;
  /** `starttls`: upgrade the connection and refuse a server that cannot; `tls`: TLS from the start (port 465); `none`: plain text, for a relay on the same host only. @default "starttls" */
  tls?: "starttls" | "tls" | "none";
  /** SMTP AUTH user; without it, no authentication. @default undefined */
  user?: string;
  /** SMTP AUTH password: a credential, never logged. @default undefined */
  password?: string;
  /** The `From:` of every mail, e.g. `Jobsight <jobsight@lab.example.org>`. */
  from: string;
  /** Deadline of connecting and of each SMTP reply. @default 10000 */
  timeoutMs?: number;
};

/**
 * Sends mail over SMTP with nodemailer.
 *
 * @example
 * ```ts
 * const mailer = smtpMailer({ host: "smtp.lab.example.org", from: "jobsight@lab.example.org" });
 * await mailer.send({ to: "alice@lab.example.org", subject: "Hello", text: "…" });
 * ```
 */
export function smtpMailer(options: SmtpMailerOptions): Mailer {
  const tls = options.tls ?? "starttls";
  const timeout = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    host: options.host,
    port: options.port ?? 587,
    secure: tls === "tls",
    requireTLS: tls === "starttls",
    ignoreTLS: tls === "none",
    auth: options.user ? { user: options.user, pass: options.password ?? "" } : undefined,
    // One connection per mail: alert mail is rate-limited and rare, and nothing is left open at shutdown.
    pool: false,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    logger: false,
  });
  return {
    send: async (message) => {
      await transport.sendMail({ from: options.from, ...message });
    },
  };
}
