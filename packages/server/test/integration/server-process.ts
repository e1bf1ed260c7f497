import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("../../", import.meta.url));

/** A `jobsight-server serve` child process (run from source through tsx). */
export type ServerProcess = {
  url: string;
  /** OTLP/gRPC and OTLP/HTTP receiver URLs (absent with `--no-otlp`). */
  otlpGrpc?: string;
  otlpHttp?: string;
  child: ChildProcess;
  output: string[];
};

/**
 * Starts `jobsight-server serve` as a child process on free ports (API and both OTLP receivers)
 * and resolves once it listens.
 *
 * @example
 * ```ts
 * const server = await startServerProcess(["--config", file]);
 * server.child.kill("SIGKILL");
 * ```
 */
export function startServerProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/main.ts",
      "serve",
      "--port",
      "0",
      "--otlp-grpc-port",
      "0",
      "--otlp-http-port",
      "0",
      ...args,
    ],
    {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start:\n${output.join("\n")}`));
    }, 90_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${output.join("\n")}`));
    });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on("line", (line) => {
        output.push(line);
        if (output.length > 500) output.shift();
        if (line.includes('"jobsight-server listening"')) {
          clearTimeout(timer);
          child.removeAllListeners("exit");
          const { url, otlpGrpc, otlpHttp } = JSON.parse(line);
          resolve({ url, otlpGrpc, otlpHttp, child, output });
        }
      });
    }
  });
}

/** Kills a child (if still running) and waits for it to be gone. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill(signal);
  await gone;
}
