import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  announceOwnerUrl,
  claimDataDir,
  DataDirInUseError,
  type DataDirOwner,
  OWNER_RECORD,
} from "./data-dir-owner.js";

const command = { kind: "command", name: "jobsight-server token" } as const;
const server = { kind: "server", name: "jobsight-server" } as const;

describe("the owner record of an embedded PostgreSQL's folder", () => {
  let dir: string;
  const children: ChildProcess[] = [];

  const record = async () => JSON.parse(await readFile(join(dir, OWNER_RECORD), "utf8")) as DataDirOwner;
  const writeRecord = (owner: Partial<DataDirOwner>) =>
    writeFile(
      join(dir, OWNER_RECORD),
      JSON.stringify({
        kind: "server",
        name: "jobsight-server",
        startedAt: "2025-01-01T00:00:00.000Z",
        nonce: "n",
        ...owner,
      }),
    );
  /** A live process that is not this one: a sleeping child. */
  const otherProcess = () => {
    const child = spawn("sleep", ["60"], { stdio: "ignore" });
    children.push(child);
    return child.pid!;
  };
  /** The pid of a process that has exited. */
  const deadPid = async () => {
    const child = spawn("true", { stdio: "ignore" });
    await new Promise((resolve) => child.once("exit", resolve));
    return child.pid!;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-owner-"));
  });

  afterEach(async () => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("is created 0600 with this process's pid, kind and name, and removed on release", async () => {
    const claim = await claimDataDir(dir, server);
    const held = await record();
    expect(held).toMatchObject({ pid: process.pid, kind: "server", name: "jobsight-server" });
    expect((await stat(join(dir, OWNER_RECORD))).mode & 0o777).toBe(0o600);
    await claim.release();
    await expect(stat(join(dir, OWNER_RECORD))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses a command while a live server holds the folder, naming its pid, URL and folder", async () => {
    const pid = otherProcess();
    await writeRecord({ pid, url: "http://127.0.0.1:8080" });
    const refused = claimDataDir(dir, {
      ...command,
      instead: (s) => `ask it at ${s.url}`,
    });
    await expect(refused).rejects.toBeInstanceOf(DataDirInUseError);
    const message = await refused.catch((e: Error) => e.message);
    expect(message).toContain(`pid ${pid}`);
    expect(message).toContain("serving http://127.0.0.1:8080");
    expect(message).toContain(dir);
    expect(message).toContain("Instead, ask it at http://127.0.0.1:8080; or stop that server");
    expect(message).toContain(`kill -TERM ${pid}`);
    // The holder's record is untouched.
    expect((await record()).pid).toBe(pid);
  });

  it("refuses a second server, and a server while a command runs", async () => {
    const pid = otherProcess();
    await writeRecord({ pid, kind: "server" });
    await expect(claimDataDir(dir, server)).rejects.toThrow(/another server on this data directory/);
    await writeRecord({ pid, kind: "command", name: "jobsight-server import" });
    await expect(claimDataDir(dir, server)).rejects.toThrow(
      /belongs to jobsight-server import .*Wait for it to finish .*then start the server again/,
    );
  });

  it("replaces a record whose process is gone", async () => {
    const pid = await deadPid();
    await writeRecord({ pid });
    const logs: string[] = [];
    const claim = await claimDataDir(dir, command, (m) => logs.push(m));
    expect((await record()).pid).toBe(process.pid);
    expect(logs.join("\n")).toContain(`(pid ${pid}) is no longer running`);
    await claim.release();
  });

  it("replaces a record whose pid now belongs to another process (started at another time)", async () => {
    const pid = otherProcess();
    await writeRecord({ pid, process: "another-boot/12345" });
    const claim = await claimDataDir(dir, command);
    expect((await record()).pid).toBe(process.pid);
    await claim.release();
  });

  it("replaces a record of this very process (a restart in the same process) and an unreadable one", async () => {
    const first = await claimDataDir(dir, server);
    const second = await claimDataDir(dir, server);
    expect((await record()).nonce).toBe(second.record.nonce);
    // The earlier claim no longer owns the record: releasing it leaves the later one in place.
    await first.release();
    expect((await record()).nonce).toBe(second.record.nonce);
    await second.release();
    await writeFile(join(dir, OWNER_RECORD), "{ half a rec");
    const third = await claimDataDir(dir, command);
    expect((await record()).nonce).toBe(third.record.nonce);
    await third.release();
  });

  it("adds the server's URL to a record this process holds, and to no other", async () => {
    const claim = await claimDataDir(dir, server);
    expect(await announceOwnerUrl(dir, "http://127.0.0.1:9999")).toBe(true);
    expect(await record()).toMatchObject({ pid: process.pid, url: "http://127.0.0.1:9999" });
    expect((await stat(join(dir, OWNER_RECORD))).mode & 0o777).toBe(0o600);
    await claim.release();
    await writeRecord({ pid: otherProcess() });
    expect(await announceOwnerUrl(dir, "http://127.0.0.1:9999")).toBe(false);
    expect((await record()).url).toBeUndefined();
  });
});
