import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A started `jobsight-server serve`, however it was launched (npx, the image's entrypoint). */
export type Serving = {
  child: ChildProcess;
  /** The REST API's URL from the "listening" log line. */
  url: string;
  /** Pid of the server's own process (from its log lines; npx puts processes in between). */
  serverPid: number;
  /** Pid of the embedded PostgreSQL it started. */
  postgresPid: number;
  output: string[];
};

/** Whether a process of this pid exists (it may belong to another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Polls until `pid` is gone; false after `timeoutMs`. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Spawns `command args` and resolves once the server logs that it listens, with the pids of the
 * server and of its embedded PostgreSQL read from its JSON log lines.
 */
export function startServing(
  command: string,
  args: string[],
  options: SpawnOptions,
  timeoutMs = 120_000,
): Promise<Serving> {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  let postgresPid: number | undefined;
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${why}:\n${output.slice(-40).join("\n")}`));
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail("the server did not start");
    }, timeoutMs);
    child.once("error", (error) => fail(`could not run ${command}: ${error.message}`));
    child.once("exit", (code, signal) => fail(`the server exited (${code ?? signal}) before listening`));
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on("line", (line) => {
        output.push(line);
        const started = /started PostgreSQL on [\d.:]+ \(pid (\d+)\)/.exec(line);
        if (started) postgresPid = Number(started[1]);
        if (!line.includes('"jobsight-server listening"')) return;
        clearTimeout(timer);
        child.removeAllListeners("exit");
        child.removeAllListeners("error");
        const { url, pid } = JSON.parse(line) as { url: string; pid: number };
        if (postgresPid === undefined) return fail("no embedded PostgreSQL was started");
        resolve({ child, url, serverPid: pid, postgresPid, output });
      });
    }
  });
}
