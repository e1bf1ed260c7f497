import { SecurityConfigError } from "../security-config-error.js";
import { type HeartbeatPayload, heartbeatPayloadErrors } from "./heartbeat-payload.js";
import type { LicenceState } from "./licence.js";

/** Where the heartbeat's values come from; the heartbeat copies only the fields it names. */
export type HeartbeatSource = {
  versions(): { server: string; schemas: string; node: string };
  health(): Promise<"ok" | "degraded" | "unavailable"> | "ok" | "degraded" | "unavailable";
  licence(): { id: string | null; status: LicenceState };
  counts(): Promise<{ nodes: number; clusters: number; jobsPerDay: number; predictionsPerDay: number }>;
};

/** What the loop logs through (pino and fastify loggers fit). */
export type HeartbeatLogger = {
  warn(details: Record<string, unknown>, message: string): void;
  debug(details: Record<string, unknown>, message: string): void;
};

/** Options of {@link HeartbeatClient}. */
export type HeartbeatOptions = {
  /**
   * The control plane's URL; nothing is ever sent without one.
   * @default undefined (off)
   */
  url?: string;
  /**
   * Milliseconds between heartbeats.
   * @default 3600000
   */
  intervalMs?: number;
  /**
   * Milliseconds before the first heartbeat after `start()`.
   * @default 60000
   */
  initialDelayMs?: number;
  /**
   * First retry delay after a failure, doubled per further failure up to `intervalMs`.
   * @default 60000
   */
  retryDelayMs?: number;
  /**
   * Milliseconds before a heartbeat request is abandoned.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Allow plain http to hosts other than loopback (never in production: the control plane is
   * outside the site).
   * @default false
   */
  allowInsecureHttp?: boolean;
  /**
   * Whether this server sends its turn: of several replicas on one database only the leader
   * does, since every one would send the same deployment-wide counts.
   * @default () => true
   */
  active?: () => boolean;
  /**
   * Logger.
   * @default silent
   */
  logger?: HeartbeatLogger;
  /**
   * The fetch implementation.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * The clock.
   * @default () => new Date()
   */
  now?: () => Date;
};

/** What one heartbeat did. */
export type HeartbeatOutcome =
  | { result: "sent"; status: number }
  | { result: "disabled" }
  | { result: "invalid"; errors: string[] }
  | { result: "failed"; error: string };

/** Counters of the loop, for the server's own metrics and health. */
export type HeartbeatStats = {
  sent: number;
  failed: number;
  invalid: number;
  consecutiveFailures: number;
  lastSentAt?: string;
};

/** The payload was refused before sending: it broke the heartbeat schema. */
export class HeartbeatPayloadError extends Error {
  readonly code = "HEARTBEAT_PAYLOAD_INVALID";
  constructor(readonly errors: string[]) {
    super(`The heartbeat breaks its schema: ${errors.slice(0, 3).join("; ")}`);
    this.name = "HeartbeatPayloadError";
  }
}

/**
 * Builds the heartbeat from `source`, copying named fields only (never spreading what the source
 * returned), and validates it against {@link HeartbeatPayload}.
 *
 * @throws {HeartbeatPayloadError} when a value breaks the schema (e.g. a free-text version).
 * @example
 * ```ts
 * const payload = await buildHeartbeat(source); // { schemaVersion: 1, versions: {...}, counts: {...}, ... }
 * ```
 */
export async function buildHeartbeat(source: HeartbeatSource, now = new Date()): Promise<HeartbeatPayload> {
  const versions = source.versions();
  const licence = source.licence();
  const counts = await source.counts();
  const payload = {
    schemaVersion: 1,
    sentAt: now.toISOString(),
    versions: { server: versions.server, schemas: versions.schemas, node: versions.node },
    health: await source.health(),
    licence: { id: licence.id, status: licence.status },
    counts: {
      nodes: counts.nodes,
      clusters: counts.clusters,
      jobsPerDay: counts.jobsPerDay,
      predictionsPerDay: counts.predictionsPerDay,
    },
  };
  const errors = heartbeatPayloadErrors(payload);
  if (errors.length > 0) throw new HeartbeatPayloadError(errors);
  return payload as HeartbeatPayload;
}

const SILENT: HeartbeatLogger = { warn: () => {}, debug: () => {} };
const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * The control-plane client: off unless a URL is configured; when on, a background loop posts the
 * heartbeat every `intervalMs`. It never throws into the server and never delays it: failures are
 * caught, logged, counted and retried with back-off, so an unreachable control plane changes
 * nothing but these counters.
 *
 * @example
 * ```ts
 * const heartbeat = new HeartbeatClient(source, { url: config.controlPlane.url, logger: app.log });
 * heartbeat.start();
 * app.addHook("onClose", () => heartbeat.stop());
 * ```
 */
export class HeartbeatClient {
  readonly #source: HeartbeatSource;
  readonly #options: HeartbeatOptions;
  readonly #log: HeartbeatLogger;
  readonly #stats: HeartbeatStats = { sent: 0, failed: 0, invalid: 0, consecutiveFailures: 0 };
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<HeartbeatOutcome> | undefined;
  #stopped = true;

  constructor(source: HeartbeatSource, options: HeartbeatOptions = {}) {
    this.#source = source;
    this.#options = options;
    this.#log = options.logger ?? SILENT;
    if (options.url !== undefined) checkUrl(options.url, options.allowInsecureHttp ?? false);
  }

  /** True when a control-plane URL is configured. */
  get enabled(): boolean {
    return this.#options.url !== undefined;
  }

  /** A copy of the counters. */
  stats(): HeartbeatStats {
    return { ...this.#stats };
  }

  /** Starts the loop (a no-op when disabled or already started). */
  start(): void {
    if (!this.enabled || !this.#stopped) return;
    this.#stopped = false;
    this.#schedule(this.#options.initialDelayMs ?? 60_000);
  }

  /** Stops the loop and waits for a heartbeat in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Sends one heartbeat now. Never throws. */
  beatOnce(): Promise<HeartbeatOutcome> {
    // A beat still in flight is joined, not doubled.
    this.#running ??= this.#beat()
      .catch((error: unknown): HeartbeatOutcome => ({ result: "failed", error: describe(error) }))
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  /** Milliseconds until the next heartbeat after `consecutiveFailures` failures. */
  nextDelayMs(consecutiveFailures: number): number {
    const interval = this.#options.intervalMs ?? 3_600_000;
    if (consecutiveFailures === 0) return interval;
    const base = (this.#options.retryDelayMs ?? 60_000) * 2 ** Math.min(consecutiveFailures - 1, 20);
    // Jitter keeps many sites from retrying in step after a control-plane outage.
    return Math.round(Math.min(base, interval) * (0.8 + Math.random() * 0.4));
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const next = () => this.#schedule(this.nextDelayMs(this.#stats.consecutiveFailures));
      if (this.#options.active?.() === false) {
        next();
        return;
      }
      // beatOnce catches everything it knows of; a throwing logger must not end the loop either.
      this.beatOnce().then(next, next);
    }, delayMs);
    this.#timer.unref();
  }

  async #beat(): Promise<HeartbeatOutcome> {
    const url = this.#options.url;
    if (url === undefined) return { result: "disabled" };
    let body: string;
    try {
      body = JSON.stringify(await buildHeartbeat(this.#source, (this.#options.now ?? (() => new Date()))()));
    } catch (error) {
      const errors = error instanceof HeartbeatPayloadError ? error.errors : [describe(error)];
      this.#stats.invalid++;
      this.#stats.consecutiveFailures++;
      this.#log.warn({ errors }, "heartbeat not sent: its payload could not be built");
      return { result: "invalid", errors };
    }
    let response: Response;
    try {
      response = await (this.#options.fetch ?? fetch)(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        redirect: "error",
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 10_000),
      });
      await response.body?.cancel();
    } catch (error) {
      return this.#failed(describe(error));
    }
    if (!response.ok) return this.#failed(`HTTP ${response.status}`);
    this.#stats.sent++;
    this.#stats.consecutiveFailures = 0;
    this.#stats.lastSentAt = new Date().toISOString();
    this.#log.debug({ status: response.status }, "heartbeat sent");
    return { result: "sent", status: response.status };
  }

  #failed(error: string): HeartbeatOutcome {
    this.#stats.failed++;
    this.#stats.consecutiveFailures++;
    this.#log.warn(
      { error, consecutiveFailures: this.#stats.consecutiveFailures },
      "heartbeat failed; the server carries on and retries later",
    );
    return { result: "failed", error };
  }
}

function checkUrl(url: string, allowInsecureHttp: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SecurityConfigError("controlPlane.url", `${url} is not a URL`);
  }
  if (parsed.protocol === "https:") return;
  if (parsed.protocol === "http:" && (allowInsecureHttp || LOOPBACK.has(parsed.hostname))) return;
  throw new SecurityConfigError("controlPlane.url", "the control plane must be reached over https");
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
