/** Stable codes of every error the collector raises; documented in the package README. */
export const collectorErrorCodes = {
  CONFIG_INVALID: "The configuration (file, flags, environment) has one or more problems.",
  SPOOL_IO: "The spool directory could not be read or written.",
  SPOOL_FULL:
    "The spool's disk is full or over quota; what was spooled before is kept and writing resumes once space returns.",
  SPOOL_CORRUPT: "A spool state file is unreadable; the spool starts from what it can verify.",
  SINK_RETRYABLE: "The backend could not take a batch now (network, 408, 429, 5xx); it is retried.",
  SINK_REJECTED:
    "The backend refused a batch for good (4xx other than 401/403/408/429, or an invalid OTLP export); it goes to a dead-letter file.",
  COMMAND_FAILED: "An external command (nvidia-smi, squeue, sacct) failed or timed out.",
  PARSE_FAILED: "An external command's output could not be parsed.",
  KUBELET_UNAVAILABLE:
    "The kubelet's PodResources API (its unix socket) is missing, failed or answered what we cannot read; pods' GPUs are then attributed from the processes on them only.",
  SOURCE_MALFORMED:
    "A kernel file (such as /proc/loadavg) does not read as the kernel writes it; the fields taken from it are left out of the samples.",
  SCRAPE_FAILED:
    "A Prometheus-format endpoint (cAdvisor, node_exporter, dcgm-exporter) did not answer, refused the scrape (HTTP status) or served too much; the round goes on without it.",
} as const;

/** A stable error code of the collector. */
export type CollectorErrorCode = keyof typeof collectorErrorCodes;

/** Base class of every error the collector throws; `code` is stable across versions. */
export class CollectorError extends Error {
  readonly code: CollectorErrorCode;
  constructor(code: CollectorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "CollectorError";
  }
}

/** One problem in the configuration, as `path: message`. */
export type ConfigProblem = { path: string; message: string };

/** Every problem of a configuration at once. */
export class ConfigError extends CollectorError {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[]) {
    super(
      "CONFIG_INVALID",
      `invalid configuration:\n${problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}`,
    );
    this.problems = problems;
    this.name = "ConfigError";
  }
}

/** The spool could not do its job: `SPOOL_FULL` when the disk is full or over quota, else `SPOOL_IO`. */
export class SpoolError extends CollectorError {
  constructor(message: string, options?: { cause?: unknown; code?: "SPOOL_IO" | "SPOOL_FULL" }) {
    super(options?.code ?? "SPOOL_IO", message, options);
    this.name = "SpoolError";
  }
}

/** A sink failed to deliver a batch; `retryable` says whether sending it again can succeed. */
export class SinkError extends CollectorError {
  readonly retryable: boolean;
  readonly status: number | undefined;
  constructor(message: string, retryable: boolean, status?: number, options?: { cause?: unknown }) {
    super(retryable ? "SINK_RETRYABLE" : "SINK_REJECTED", message, options);
    this.retryable = retryable;
    this.status = status;
    this.name = "SinkError";
  }
}

/** An external command failed, timed out or printed what we cannot read. */
export class CommandError extends CollectorError {
  constructor(code: "COMMAND_FAILED" | "PARSE_FAILED", message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "CommandError";
  }
}

/** A kernel file did not read as the kernel writes it; `path` names the file. */
export class SourceFormatError extends CollectorError {
  readonly path: string;
  constructor(path: string, message: string) {
    super("SOURCE_MALFORMED", `${path}: ${message}`);
    this.path = path;
    this.name = "SourceFormatError";
  }
}

/** The kubelet's PodResources API could not be asked or its answer not read. */
export class KubeletError extends CollectorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("KUBELET_UNAVAILABLE", message, options);
    this.name = "KubeletError";
  }
}

/** A scrape of a Prometheus-format endpoint failed; `status` is the HTTP status when it answered one. */
export class ScrapeError extends CollectorError {
  readonly status: number | undefined;
  constructor(message: string, status?: number, options?: { cause?: unknown }) {
    super("SCRAPE_FAILED", message, options);
    this.status = status;
    this.name = "ScrapeError";
  }
}
