import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeCommand } from "../test-support/fake-command.js";
import { killIfRunning, running } from "../test-support/process-state.js";
import { tiedCommand } from "./tied-child.js";

// A parent that spawns the tied command as the collector does, then waits to be killed.
const parentScript = `
const { spawn } = require("node:child_process");
const [file, ...args] = JSON.parse(process.argv[1]);
spawn(file, args, { stdio: ["pipe", "ignore", "ignore"] });
process.stdout.write("started\\n");
setInterval(() => {}, 1000);
`;

describe("tiedCommand", () => {
  const pids: number[] = [];
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const pid of pids.splice(0)) killIfRunning(pid);
    for (const c of cleanups.splice(0)) c();
  });

  /** A long-running command that writes its pid, run under a parent node process. */
  async function startParent(): Promise<{ parent: ChildProcess; commandPid: number }> {
    const fake = fakeCommand("long-runner", `echo $$ > "$(dirname "$0")/pid"\nwhile :; do sleep 0.2; done`);
    cleanups.push(fake.cleanup);
    const tied = tiedCommand(fake.path, ["--loop"]);
    const parent = spawn(process.execPath, ["-e", parentScript, JSON.stringify([tied.file, ...tied.args])], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    pids.push(parent.pid!);
    let commandPid = 0;
    await vi.waitFor(
      () => {
        commandPid = Number(readFileSync(join(fake.dir, "pid"), "utf8"));
        expect(running(commandPid)).toBe(true);
      },
      { timeout: 5000 },
    );
    pids.push(commandPid);
    return { parent, commandPid };
  }

  it.each(["SIGKILL", "SIGTERM"] as const)(
    "ends the command when its parent is killed with %s",
    async (signal) => {
      const { parent, commandPid } = await startParent();
      parent.kill(signal);
      await vi.waitFor(() => expect(running(commandPid)).toBe(false), { timeout: 5000 });
    },
  );

  it("passes the command's output and exit status through, and says 127 for a missing command", async () => {
    const run = (command: string, args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        const tied = tiedCommand(command, args);
        execFile(tied.file, tied.args, (error, stdout) =>
          resolve({ code: (error as { code?: number } | null)?.code ?? 0, stdout }),
        );
      });
    const fake = fakeCommand("echoer", `echo "$1|$2"\nexit 3`);
    cleanups.push(fake.cleanup);
    expect(await run(fake.path, ["a b", "c"])).toEqual({ code: 3, stdout: "a b|c\n" });
    expect((await run("/nonexistent/nvidia-smi", [])).code).toBe(127);
  });
});
