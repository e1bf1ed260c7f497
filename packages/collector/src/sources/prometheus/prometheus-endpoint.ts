import type { Agent } from "node:https";
import { ScrapeError } from "../../errors.js";
import { type Logger, silentLogger } from "../../log/logger.js";
import { fetchExposition } from "./fetch-exposition.js";
import { type PromSample, parsePrometheusText } from "./prometheus-text.js";

/** Where a scraped endpoint stands: never scraped, answering, or failing since it last answered. */
export type PrometheusEndpointStatus = "stopped" | "running" | "unavailable";

/**
 * How an endpoint's scrapes authenticate, as Prometheus's `tls_config` and `bearer_token_file`:
 * see `KubeletAuth` for the kubelet's.
 */
export type ScrapeAuth = {
  /** Agent of an `https` endpoint, carrying its TLS trust; `undefined` for Node.js's global agent. */
  readonly agent: Agent | undefined;
  /** Headers of the next scrape (e.g. a bearer token read afresh); never rejects. */
  headers(): Promise<Record<string, string>>;
  /** What the operator should be told about a failed scrape (a refusal, an untrusted certificate), if anything. */
  explain(error: ScrapeError): string | undefined;
};

/** Options of {@link PrometheusEndpoint}. */
export type PrometheusEndpointOptions = {
  /** The endpoint serving the Prometheus text format, e.g. `http://127.0.0.1:9100/metrics`. */
  url: string;
  /** How the endpoint is named in log lines and unavailability messages, e.g. "node_exporter". */
  name: string;
  /** Time limit of one scrape. @default 5000 */
  timeoutMs?: number;
  /** Called once, the first time the endpoint proves unavailable. @default no-op */
  onUnavailable?: (message: string) => void;
  /** How scrapes authenticate. @default none: no token, the CAs Node.js trusts for `https` */
  auth?: ScrapeAuth;
  /** Structured log. @default silent */
  logger?: Logger;
};

/** The largest scrape read; a kubelet with a few hundred containers serves a few megabytes. */
const MAX_BODY = 32 * 1024 * 1024;

/**
 * One Prometheus-format endpoint scraped once per collection round. A scrape never throws: a
 * failure makes the endpoint `unavailable` (said once through `onUnavailable`, logged when it
 * answers again) and gives `undefined`, so the round goes on with the collector's own readings.
 *
 * @example
 * ```ts
 * const ep = new PrometheusEndpoint({ url: "http://127.0.0.1:9100/metrics", name: "node_exporter" });
 * const samples = await ep.scrape(); // undefined while it does not answer
 * ```
 */
export class PrometheusEndpoint {
  status: PrometheusEndpointStatus = "stopped";
  /** Lines of the latest scrape that could not be read. */
  skippedLines = 0;
  readonly url: string;
  private readonly name: string;
  private readonly timeoutMs: number;
  private readonly onUnavailable: (message: string) => void;
  private readonly auth: ScrapeAuth | undefined;
  private readonly log: Logger;
  private reportedUnavailable = false;

  constructor(options: PrometheusEndpointOptions) {
    this.url = options.url;
    this.name = options.name;
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.onUnavailable = options.onUnavailable ?? (() => {});
    this.auth = options.auth;
    this.log = options.logger ?? silentLogger;
  }

  /** Scrape and parse once; resolves with the samples, or `undefined` when the scrape failed. */
  async scrape(): Promise<PromSample[] | undefined> {
    let body: string;
    try {
      const headers = await this.auth?.headers();
      body = await fetchExposition(this.url, this.timeoutMs, MAX_BODY, { headers, agent: this.auth?.agent });
    } catch (error) {
      const hint = error instanceof ScrapeError ? this.auth?.explain(error) : undefined;
      // Node 24 appends advice about its own flags ("; if the root CA is installed locally, try
      // running Node.js with --use-system-ca") that does not help a collector's operator.
      const said = (error as Error).message.split("; if the root CA")[0];
      const why = `${said}${hint ? `: ${hint}` : ""}`;
      this.failed(`${this.name} scrape of ${this.url} failed: ${why}`);
      return undefined;
    }
    const { samples, problems } = parsePrometheusText(body);
    this.skippedLines = problems.length;
    if (this.status === "unavailable") this.log.info(`${this.name} answers again`, { url: this.url });
    this.status = "running";
    return samples;
  }

  /** Count a scrape that answered but served nothing usable as a failure too. */
  failed(message: string): void {
    if (this.status !== "unavailable") this.log.warn(message);
    this.status = "unavailable";
    // Said once per process: a flapping endpoint must not flood the spool with events.
    if (this.reportedUnavailable) return;
    this.reportedUnavailable = true;
    this.onUnavailable(message);
  }
}
