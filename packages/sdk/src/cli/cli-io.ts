/** A stream the CLI writes to: `process.stdout`, `process.stderr`, or a test's buffer. */
export type OutputStream = { write(text: string): unknown; isTTY?: boolean; columns?: number };

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export type CliIo = {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Environment variables (JOBSIGHT_URL, JOBSIGHT_TOKEN, NO_COLOR, ...). */
  env: Record<string, string | undefined>;
  /** Working directory; relative paths are read from here. */
  cwd: string;
  /** Home directory, for `~/.config/jobsight/config.json`. */
  home: string;
  /** The `fetch` the client uses (tests pass a fake server's). */
  fetch?: typeof fetch;
};

/** Exit codes CI can act on. */
export const exitCodes = {
  /** Success; for `diagnose`, no finding of severity error. */
  ok: 0,
  /** `diagnose` found at least one finding of severity error. */
  findings: 1,
  /** Bad arguments, configuration, or a request the server refused (4xx). */
  usage: 2,
  /** The server could not be reached or gave no usable answer (connection, timeout, 5xx, bad body). */
  unreachable: 3,
} as const;
