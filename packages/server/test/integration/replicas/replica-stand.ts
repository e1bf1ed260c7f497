import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createTestBucket,
  createTestDatabase,
  type TestBucket,
  type TestDatabase,
} from "../../../../../test/services/index.js";
import { type ServerProcess, startServerProcess, stopProcess } from "../server-process.js";
import type { TestPrincipal } from "../test-server-config.js";

/** Limits of the replicas: low enough that a test can show they count together. */
export const RATE_LIMIT = { requestsPerSecond: 10, burst: 60 };

/**
 * Several `jobsight-server serve` processes on one real PostgreSQL database and one real S3
 * bucket (the shared test services), started, killed and restarted one by one.
 */
export class ReplicaStand {
  readonly replicas: (ServerProcess | undefined)[] = [];
  /** Base URL each replica had when last started (kept after a kill, as a load balancer would). */
  readonly urls: string[] = [];
  #args: string[] = [];

  private constructor(
    readonly db: TestDatabase,
    readonly bucket: TestBucket,
    readonly dir: string,
  ) {}

  /** A fresh database and bucket and the configuration file every replica reads. */
  static async create(principals: readonly TestPrincipal[]): Promise<ReplicaStand> {
    const db = await createTestDatabase("replicas");
    const bucket = await createTestBucket("replicas");
    const dir = await mkdtemp(join(tmpdir(), "jobsight-replicas-"));
    const stand = new ReplicaStand(db, bucket, dir);
    const config = join(dir, "jobsight.json");
    await writeFile(
      config,
      JSON.stringify({
        dataDir: dir,
        postgres: { url: db.url, poolSize: 4 },
        objectStore: {
          bucket: bucket.bucket,
          endpoint: bucket.endpoint,
          region: bucket.region,
          forcePathStyle: true,
          accessKeyId: bucket.credentials.accessKeyId,
          secretAccessKey: bucket.credentials.secretAccessKey,
        },
        http: { logLevel: "info" },
        rateLimit: { enabled: true, ...RATE_LIMIT },
        auth: { tokens: [...principals] },
        intelligence: { enabled: true, mode: "live", trainOnStart: false },
      }),
      // Holds secrets: the server refuses a config file others can read.
      { mode: 0o600 },
    );
    stand.#args = ["--config", config];
    return stand;
  }

  /** The S3 settings of the replicas, for a store the test opens itself. */
  get objectStoreConfig() {
    const b = this.bucket;
    return {
      bucket: b.bucket,
      endpoint: b.endpoint,
      region: b.region,
      forcePathStyle: true,
      accessKeyId: b.credentials.accessKeyId,
      secretAccessKey: b.credentials.secretAccessKey,
    };
  }

  /** Starts replica `i` (again) and resolves once it listens. */
  async start(i: number): Promise<ServerProcess> {
    const server = await startServerProcess(this.#args);
    this.replicas[i] = server;
    this.urls[i] = server.url;
    return server;
  }

  /** SIGKILLs replica `i`: no shutdown, no final writes, its sessions die with it. */
  async kill(i: number): Promise<void> {
    const server = this.replicas[i];
    this.replicas[i] = undefined;
    if (server) await stopProcess(server.child, "SIGKILL");
  }

  async dispose(): Promise<void> {
    for (const server of this.replicas) if (server) await stopProcess(server.child, "SIGTERM");
    await this.db.drop();
    await this.bucket.drop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A client that sends each request to the next replica in turn and, when a replica does not
 * answer (killed: connection refused or reset), sends the same request to the next one.
 */
export class RoundRobinClient {
  #next = 0;
  /** Requests that failed on one replica and were sent again to another. */
  retried = 0;

  constructor(
    private readonly urls: () => readonly string[],
    private readonly token: string,
  ) {}

  /** Sends `body` (JSON) to `path` with `method`; resolves with the first answer any replica gives. */
  async send(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const urls = this.urls();
    let last: unknown;
    for (let attempt = 0; attempt < urls.length * 2; attempt++) {
      const url = urls[this.#next++ % urls.length];
      try {
        const res = await fetch(`${url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.token}`,
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        return { status: res.status, json: text ? JSON.parse(text) : undefined };
      } catch (error) {
        last = error;
        this.retried++;
      }
    }
    throw new Error(`no replica answered ${method} ${path}`, { cause: last });
  }
}

/**
 * Polls `check` every 250 ms (slower than the replicas' rate limit refills) until it returns a
 * value other than undefined, or fails after `ms`.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
