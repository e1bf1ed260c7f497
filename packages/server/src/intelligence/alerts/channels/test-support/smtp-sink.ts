import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

/** A mail the sink received, parsed. */
export type ReceivedMail = {
  from: string;
  to: string[];
  subject: string;
  text: string;
  headers: ParsedMail["headers"];
};

/** A real SMTP server (the `smtp-server` package) on 127.0.0.1 that keeps what it receives. */
export type SmtpSink = {
  port: number;
  mails: ReceivedMail[];
  /** Answers the next `n` mails with a temporary failure (451). */
  failNext(n: number): void;
  close(): Promise<void>;
};

/**
 * Starts an SMTP server on a port of the system's choosing, plain text (no STARTTLS offered),
 * accepting AUTH PLAIN/LOGIN only for `auth` when given.
 */
export async function startSmtpSink(auth?: { user: string; password: string }): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  let failing = 0;
  const options: SMTPServerOptions = {
    disabledCommands: auth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    allowInsecureAuth: true,
    authOptional: !auth,
    logger: false,
    onAuth(a, _session, callback) {
      if (auth && a.username === auth.user && a.password === auth.password)
        return callback(null, { user: a.username });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      if (failing > 0) {
        failing--;
        stream.resume();
        const error = Object.assign(new Error("Try again later"), { responseCode: 451 });
        stream.on("end", () => callback(error));
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? "",
            text: mail.text ?? "",
            headers: mail.headers,
          });
          callback();
        },
        (error) => callback(error),
      );
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    mails,
    failNext: (n) => {
      failing = n;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
