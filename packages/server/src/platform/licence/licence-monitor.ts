import { readFile } from "node:fs/promises";
import type { JWK } from "jose";
import type { LicenceConfig } from "../../config/security-config.js";
import { type LicenceStatus, type LoadedLicence, licenceStatus, loadLicence } from "./licence.js";

/** What the monitor logs through (pino and fastify loggers fit). */
export type LicenceMonitorLogger = { warn(details: Record<string, unknown>, message: string): void };

/** Options of {@link LicenceMonitor.load}. */
export type LicenceMonitorOptions = {
  /** The `licence` configuration section (file or inline JWS, grace days). */
  config: LicenceConfig;
  /**
   * Public keys licences are verified against; only tests pass their own.
   * @default LICENCE_PUBLIC_KEYS, built into the server
   */
  publicKeys?: readonly JWK[];
  /**
   * Nodes currently reporting (compared with the licence's `maxNodes`).
   * @default () => Promise.resolve(0)
   */
  nodeCount?: () => Promise<number>;
  /**
   * Milliseconds between two node counts once `start()` ran.
   * @default 600000
   */
  refreshMs?: number;
  /**
   * The clock.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Logger for failed node counts and licence problems.
   * @default silent
   */
  log?: LicenceMonitorLogger;
};

/**
 * The licence as the running server sees it: verified once at start, its state worked out on
 * every call from the clock and the last node count. Nothing here ever stops the server: an
 * expired, over-limit, invalid or missing licence is only reported (health, a response header,
 * the heartbeat), and collection and storage carry on so no data is lost. Without any licence
 * configured the server runs in the evaluation state, reported as `missing`.
 *
 * @example
 * ```ts
 * const licence = await LicenceMonitor.load({ config: config.licence, nodeCount: () => countNodes() });
 * licence.start();
 * licence.status().state; // "valid" | "grace" | "expired" | "missing" | "invalid"
 * ```
 */
export class LicenceMonitor {
  readonly #loaded: LoadedLicence;
  readonly #options: LicenceMonitorOptions;
  #nodeCount = 0;
  #timer: NodeJS.Timeout | undefined;

  private constructor(loaded: LoadedLicence, options: LicenceMonitorOptions) {
    this.#loaded = loaded;
    this.#options = options;
  }

  /** Reads and verifies the configured licence and takes a first node count. Never throws. */
  static async load(options: LicenceMonitorOptions): Promise<LicenceMonitor> {
    const loaded = await readConfiguredLicence(options);
    const monitor = new LicenceMonitor(loaded, options);
    await monitor.refresh();
    const status = monitor.status();
    if (status.state !== "valid") {
      options.log?.warn(
        { licence: status.state, reason: status.reason },
        "licence not valid; the server keeps collecting and storing",
      );
    }
    return monitor;
  }

  /** The licence's state now. */
  status(): LicenceStatus {
    return licenceStatus(this.#loaded, {
      graceDays: this.#options.config.graceDays,
      nodeCount: this.#nodeCount,
      now: (this.#options.now ?? (() => new Date()))(),
    });
  }

  /** Counts reporting nodes again; a failed count keeps the last one. Never throws. */
  async refresh(): Promise<void> {
    if (!this.#options.nodeCount) return;
    try {
      this.#nodeCount = await this.#options.nodeCount();
    } catch (error) {
      this.#options.log?.warn({ err: error }, "licence: nodes could not be counted; keeping the last count");
    }
  }

  /** Refreshes the node count every `refreshMs` until {@link stop}. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.refresh(), this.#options.refreshMs ?? 600_000);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

async function readConfiguredLicence(options: LicenceMonitorOptions): Promise<LoadedLicence> {
  const { file, jws } = options.config;
  const keys = options.publicKeys ? { publicKeys: options.publicKeys } : {};
  if (file === undefined) return loadLicence(jws, keys);
  try {
    return await loadLicence(await readFile(file, "utf8"), keys);
  } catch (error) {
    // The path is the operator's own setting; the file's content is never echoed.
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    return { kind: "invalid", reason: `licence.file ${file} cannot be read (${code})` };
  }
}
