import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Logger, silentLogger } from "../log/logger.js";

/** Options of {@link HealthServer}. */
export type HealthServerOptions = {
  /** Address to listen on; keep it local unless a monitoring system must reach it. @default "127.0.0.1" */
  host?: string;
  /** Port; 0 picks a free one. */
  port: number;
  /** The current health report (served as JSON by `GET /healthz`). */
  report: () => Record<string, unknown> & { status: string };
  /** Handles `POST /v1/epilog?job=<id>` from the SLURM epilog hook. @default none (404) */
  onEpilog?: (jobId: string) => Promise<boolean>;
  /** Structured log. @default silent */
  logger?: Logger;
  /** Serves `GET /metrics` (the Prometheus text format) when given. @default none (404) */
  metrics?: { contentType: string; render(): Promise<string> };
};

/**
 * The collector's own small HTTP endpoint: `GET /healthz` (status, lag, spool and shipping figures;
 * 200 when ok or degraded, 503 when failing), `GET /metrics` (the same figures for Prometheus) and
 * `POST /v1/epilog?job=<id>` for the epilog hook.
 *
 * @example
 * ```ts
 * const health = new HealthServer({ port: 9465, report: () => ({ status: "ok" }) });
 * const port = await health.start();
 * ```
 */
export class HealthServer {
  private readonly o: HealthServerOptions;
  private readonly log: Logger;
  private server: Server | undefined;

  constructor(options: HealthServerOptions) {
    this.o = options;
    this.log = options.logger ?? silentLogger;
  }

  /** Listen; resolves with the port. */
  async start(): Promise<number> {
    // node:http (with net and stream) is loaded here, not at import: a collector or a library user
    // that never serves the health port does not carry it in memory.
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error) => {
        this.log.error("health endpoint failed", { error });
        if (!res.headersSent) send(res, 500, { error: "internal error" });
      });
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.o.port, this.o.host ?? "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "GET" && url.pathname === "/healthz") {
      const report = this.o.report();
      send(res, report.status === "failing" ? 503 : 200, report);
      return;
    }
    if (req.method === "GET" && url.pathname === "/metrics" && this.o.metrics) {
      const body = await this.o.metrics.render();
      res.writeHead(200, { "content-type": this.o.metrics.contentType }).end(body);
      return;
    }
    if (req.method === "POST" && url.pathname === "/v1/epilog" && this.o.onEpilog) {
      const job = url.searchParams.get("job");
      if (!job || job.length > 256) {
        send(res, 400, { error: "job query parameter required" });
        return;
      }
      send(res, 200, { job, recorded: await this.o.onEpilog(job) });
      return;
    }
    send(res, 404, { error: "not found" });
  }

  stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
