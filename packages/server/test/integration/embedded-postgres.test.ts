import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { findFreePort as freePort } from "../../../../test/services/free-port.js";
import { EmbeddedPostgres } from "../../src/data-plane/storage/embedded-postgres.js";
import { resolveBinaries } from "../../src/data-plane/storage/postgres-binaries.js";
import { postgresOsUser } from "../../src/data-plane/storage/postgres-os-user.js";

const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));
const MODULE = fileURLToPath(new URL("../../src/data-plane/storage/embedded-postgres.ts", import.meta.url));
const asRoot = process.getuid?.() === 0;

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
const lockPid = async (dataDir: string) =>
  Number((await readFile(join(dataDir, "postmaster.pid"), "utf8")).split("\n")[0]);
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const answers = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ one: number }>("SELECT 1 AS one")).rows[0].one === 1;
  } finally {
    await client.end();
  }
};

/** A server process that starts the embedded PostgreSQL, prints its URL, and is then killed. */
async function startInChild(dir: string): Promise<{ child: ChildProcess; url: string }> {
  const code = `const { EmbeddedPostgres } = await import(process.argv[1]);
    console.log(await new EmbeddedPostgres({ dir: process.argv[2] }).start());
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code, MODULE, dir], {
    cwd: PACKAGE_DIR,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (status) => reject(new Error(`child exited (${status}) before starting PostgreSQL`)));
    createInterface({ input: child.stdout! }).once("line", resolve);
  });
  child.removeAllListeners("exit");
  return { child, url };
}

describe("embedded PostgreSQL: its files, and a server killed with SIGKILL", () => {
  let root: string;
  let dir: string;
  let umask: number;
  const stray: ChildProcess[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "jobsight-embedded-"));
    // mkdtemp makes root 0700: as root, the postgres user must still reach the folders below.
    if (asRoot) await chmod(root, 0o755);
    dir = join(root, "jobsight", "postgres");
    // The widest umask: modes must come from the server, not from the process.
    umask = process.umask(0);
  });

  afterAll(async () => {
    process.umask(umask);
    for (const child of stray) child.kill("SIGKILL");
    const pid = await lockPid(join(dir, "data")).catch(() => undefined);
    if (pid && isAlive(pid)) process.kill(pid, "SIGQUIT");
    await rm(root, { recursive: true, force: true });
  });

  it("makes its folders 0700 and its password and log 0600 whatever the umask", async () => {
    const postgres = new EmbeddedPostgres({ dir });
    try {
      expect(await answers(await postgres.start())).toBe(true);
    } finally {
      await postgres.stop();
    }
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(join(dir, "data"))).toBe(0o700);
    expect(await modeOf(join(dir, "password"))).toBe(0o600);
    expect(await modeOf(join(dir, "postgres.log"))).toBe(0o600);
    // The folder made above ours: the server's alone, or passable (not listable) by the postgres user.
    expect(await modeOf(join(root, "jobsight"))).toBe(asRoot ? 0o711 : 0o700);
    if (asRoot) {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
      expect((await stat(dir)).uid).toBe(uid);
    }
  });

  it("narrows at start what an older version left readable by everyone", async () => {
    await chmod(dir, 0o755);
    await chmod(join(dir, "data"), 0o755);
    await chmod(join(dir, "password"), 0o644);
    await chmod(join(dir, "postgres.log"), 0o644);
    const postgres = new EmbeddedPostgres({ dir });
    try {
      expect(await answers(await postgres.start())).toBe(true);
      expect(await modeOf(dir)).toBe(0o700);
      expect(await modeOf(join(dir, "data"))).toBe(0o700);
      expect(await modeOf(join(dir, "password"))).toBe(0o600);
      expect(await modeOf(join(dir, "postgres.log"))).toBe(0o600);
    } finally {
      await postgres.stop();
    }
  });

  it("shuts its PostgreSQL down (fast) within seconds of a SIGKILL of the server; the next start starts its own on the same data", async () => {
    const first = await startInChild(dir);
    stray.push(first.child);
    const pid = await lockPid(join(dir, "data"));
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    await client.query("CREATE TABLE IF NOT EXISTS kept (n int); INSERT INTO kept VALUES (1)");
    await client.end();
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    await vi.waitFor(() => expect(isAlive(pid)).toBe(false), { timeout: 10_000, interval: 100 });
    const log = await readFile(join(dir, "postgres.log"), "utf8");
    expect(log).toContain("received fast shutdown request");
    const logs: string[] = [];
    const next = new EmbeddedPostgres({ dir, log: (m) => logs.push(m) });
    const url = await next.start();
    try {
      expect(logs.some((m) => m.startsWith("started PostgreSQL on"))).toBe(true);
      expect(await lockPid(join(dir, "data"))).not.toBe(pid);
      const again = new pg.Client({ connectionString: url });
      await again.connect();
      expect((await again.query("SELECT count(*)::int AS n FROM kept")).rows[0].n).toBeGreaterThanOrEqual(1);
      await again.end();
    } finally {
      await next.stop();
    }
  });

  it("shuts down a PostgreSQL left running untied on its folder (an older version's), then starts its own", async () => {
    // What an older version left after a kill -9: a detached postmaster no guard watches.
    const user = await postgresOsUser();
    const { postgres } = await resolveBinaries();
    const dataDir = join(dir, "data");
    const orphanPort = await freePort();
    const orphan = spawn(
      postgres,
      [
        "-D",
        dataDir,
        "-p",
        String(orphanPort),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "unix_socket_directories=",
      ],
      {
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
        detached: true,
        stdio: "ignore",
        env: { ...process.env, LC_ALL: "C" },
      },
    );
    stray.push(orphan);
    await vi.waitFor(
      async () =>
        expect((await readFile(join(dataDir, "postmaster.pid"), "utf8")).split("\n")[3]).toBe(
          String(orphanPort),
        ),
      {
        timeout: 20_000,
        interval: 100,
      },
    );
    const logs: string[] = [];
    const next = new EmbeddedPostgres({ dir, log: (m) => logs.push(m) });
    const url = await next.start();
    try {
      expect(isAlive(orphan.pid!)).toBe(false);
      expect(logs.some((m) => m.startsWith(`stopping PostgreSQL left running on port ${orphanPort}`))).toBe(
        true,
      );
      // On the port it had, so whoever kept its URL finds it again.
      expect(new URL(url).port).toBe(String(orphanPort));
      expect(await answers(url)).toBe(true);
    } finally {
      await next.stop();
    }
  });

  it("removes a lock whose pid now belongs to another process, and starts", async () => {
    // After a reboot the pid in postmaster.pid may be reused; PostgreSQL alone would refuse to start.
    const other = spawn("sleep", ["120"], { stdio: "ignore" });
    stray.push(other);
    const dataDir = join(dir, "data");
    await writeFile(
      join(dataDir, "postmaster.pid"),
      `${other.pid}\n${dataDir}\n1700000000\n1\n\n127.0.0.1\n`,
    );
    const logs: string[] = [];
    const postgres = new EmbeddedPostgres({ dir, log: (m) => logs.push(m), startTimeoutMs: 30_000 });
    try {
      expect(await answers(await postgres.start())).toBe(true);
      expect(await lockPid(dataDir)).not.toBe(other.pid);
      expect(logs.some((m) => m.includes(`pid ${other.pid} is not a PostgreSQL on this folder`))).toBe(true);
      expect(isAlive(other.pid!)).toBe(true);
    } finally {
      await postgres.stop();
      other.kill("SIGKILL");
    }
  });
});
