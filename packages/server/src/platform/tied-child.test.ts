import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tiedCommand } from "./tied-child.js";

// A parent that spawns the tied command as the embedded PostgreSQL is spawned, then waits to be killed.
const parentScript = `
const { spawn } = require("node:child_process");
const [file, ...args] = JSON.parse(process.argv[1]);
spawn(file, args, { stdio: ["pipe", "ignore", "ignore"], detached: true }).unref();
setInterval(() => {}, 1000);
`;

// A command that notes its pid and the first signal it gets, and stops on SIGINT only.
const commandScript = `
const fs = require("node:fs");
const [dir] = process.argv.slice(1);
for (const s of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"])
  process.on(s, () => {
    fs.writeFileSync(dir + "/signal", s);
    if (s === "SIGINT") process.exit(0);
  });
fs.writeFileSync(dir + "/pid", String(process.pid));
setInterval(() => {}, 1000);
`;

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("tiedCommand", () => {
  const children: ChildProcess[] = [];
  const pids: number[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill("SIGKILL");
    for (const pid of pids.splice(0)) if (running(pid)) process.kill(pid, "SIGKILL");
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  async function startTied(): Promise<{ parent: ChildProcess; dir: string; commandPid: number }> {
    const dir = mkdtempSync(join(tmpdir(), "jobsight-tied-"));
    dirs.push(dir);
    const tied = tiedCommand(process.execPath, ["-e", commandScript, dir], {
      stopSignal: "INT",
      graceSeconds: 5,
      lastSignal: "QUIT",
    });
    const parent = spawn(process.execPath, ["-e", parentScript, JSON.stringify([tied.file, ...tied.args])], {
      stdio: "ignore",
    });
    children.push(parent);
    let commandPid = 0;
    await vi.waitFor(
      () => {
        commandPid = Number(readFileSync(join(dir, "pid"), "utf8"));
        expect(running(commandPid)).toBe(true);
      },
      { timeout: 10_000 },
    );
    pids.push(commandPid);
    return { parent, dir, commandPid };
  }

  it("asks the command to stop with the stop signal when its parent is killed with SIGKILL", async () => {
    const { parent, dir, commandPid } = await startTied();
    parent.kill("SIGKILL");
    await vi.waitFor(() => expect(running(commandPid)).toBe(false), { timeout: 5000 });
    expect(readFileSync(join(dir, "signal"), "utf8")).toBe("SIGINT");
  });

  it("passes SIGTERM sent to the guard on as the stop signal, and exits with the command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jobsight-tied-"));
    dirs.push(dir);
    const tied = tiedCommand(process.execPath, ["-e", commandScript, dir], { stopSignal: "INT" });
    const guard = spawn(tied.file, tied.args, { stdio: ["pipe", "ignore", "ignore"] });
    children.push(guard);
    await vi.waitFor(() => expect(readFileSync(join(dir, "pid"), "utf8")).not.toBe(""), { timeout: 10_000 });
    const exited = new Promise<number | null>((resolve) => guard.once("exit", (code) => resolve(code)));
    guard.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(readFileSync(join(dir, "signal"), "utf8")).toBe("SIGINT");
  });

  it("passes the command's exit status through, and says 127 for a missing command", async () => {
    const run = (command: string, args: string[]) =>
      new Promise<number>((resolve) => {
        const tied = tiedCommand(command, args);
        execFile(tied.file, tied.args, (error) => resolve((error as { code?: number } | null)?.code ?? 0));
      });
    expect(await run(process.execPath, ["-e", "process.exit(3)"])).toBe(3);
    expect(await run("/nonexistent/postgres", [])).toBe(127);
  });
});
