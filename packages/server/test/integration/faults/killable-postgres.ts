import { findFreePort } from "../../../../../test/services/free-port.js";
import { EmbeddedPostgres } from "../../../src/data-plane/storage/embedded-postgres.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether any process of group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A PostgreSQL of the test's own (never the shared test server) on a fixed port and data folder,
 * that can be killed with SIGKILL, postmaster and backends at once, and started again on the same
 * data: crash recovery, then the server's pool finds it again at the same address.
 *
 * @example
 * ```ts
 * const db = await KillablePostgres.start(dir);
 * await db.kill();
 * await db.restart();
 * ```
 */
export class KillablePostgres {
  /** Times PostgreSQL was killed, and started again. */
  kills = 0;
  restarts = 0;

  private constructor(
    private readonly dir: string,
    private readonly port: number,
    private current: EmbeddedPostgres,
    /** Connection URL of the `jobsight` database; the same after every restart. */
    readonly url: string,
  ) {}

  static async start(dir: string): Promise<KillablePostgres> {
    const port = await findFreePort();
    const postgres = new EmbeddedPostgres({ dir, port });
    const url = await postgres.start();
    return new KillablePostgres(dir, port, postgres, url);
  }

  /**
   * SIGKILL to the process group of the guard running the postmaster (it runs detached, leading
   * the group: the postmaster and every backend are in it).
   */
  async kill(): Promise<void> {
    const pid = this.current.pid;
    if (pid === undefined || !groupAlive(pid)) return;
    process.kill(-pid, "SIGKILL");
    const deadline = Date.now() + 30_000;
    while (groupAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL group ${pid} survived SIGKILL`);
      await sleep(20);
    }
    this.kills++;
  }

  /** Start again on the same data folder and port (crash recovery runs first). */
  async restart(): Promise<void> {
    this.current = new EmbeddedPostgres({ dir: this.dir, port: this.port });
    const url = await this.current.start();
    if (url !== this.url) throw new Error(`PostgreSQL came back at ${url}, not ${this.url}`);
    this.restarts++;
  }

  /** Clean shutdown at the end of the suite. */
  stop(): Promise<void> {
    return this.current.stop();
  }
}
