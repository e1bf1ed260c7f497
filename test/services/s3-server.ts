import { fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunningService } from "./running-service.js";
import { TestServicesError } from "./test-services-error.js";
import type { S3ServiceInfo } from "./types.js";

const CHILD = fileURLToPath(new URL("./s3rver-process.mjs", import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;
// s3rver accepts exactly this key pair (its built-in dummy account).
const S3RVER_KEY = "S3RVER";

/**
 * Starts s3rver on 127.0.0.1 on a port it picks itself, storing objects in a fresh temp folder.
 * It runs in a child process with `--openssl-legacy-provider` (paged listings need DES on Node 20).
 *
 * @example
 * const s3 = await startS3rver();
 * try { console.log(s3.info.endpoint); } finally { await s3.stop(); }
 */
export async function startS3rver(): Promise<RunningService<S3ServiceInfo>> {
  const directory = await mkdtemp(join(tmpdir(), "jobsight-s3-"));
  const child = fork(CHILD, [directory], {
    execArgv: ["--openssl-legacy-provider"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-8_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await rm(directory, { recursive: true, force: true });
  };

  let port: number;
  try {
    port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out")), START_TIMEOUT_MS);
      child.on("message", (message: { type?: string; port?: number; message?: string }) => {
        clearTimeout(timer);
        if (message.type === "listening" && typeof message.port === "number") resolve(message.port);
        else reject(new Error(message.message ?? "unexpected message"));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited early (code ${code}, signal ${signal})`));
      });
    });
  } catch (cause) {
    await stop();
    throw new TestServicesError("S3_START_FAILED", `s3rver did not start: ${String(cause)}\n${output}`, {
      cause,
    });
  }
  // Without this the open IPC channel would keep the vitest process alive after teardown.
  child.unref();
  child.channel?.unref();

  return {
    info: {
      endpoint: `http://127.0.0.1:${port}`,
      region: "us-east-1",
      accessKeyId: S3RVER_KEY,
      secretAccessKey: S3RVER_KEY,
      embedded: true,
    },
    stop,
  };
}

/**
 * Describes an already running S3-compatible server from `JOBSIGHT_TEST_S3_ENDPOINT` (with
 * `JOBSIGHT_TEST_S3_REGION`, `JOBSIGHT_TEST_S3_ACCESS_KEY_ID`, `JOBSIGHT_TEST_S3_SECRET_ACCESS_KEY`);
 * nothing is started or stopped.
 */
export function externalS3(env: NodeJS.ProcessEnv): RunningService<S3ServiceInfo> {
  const endpoint = env.JOBSIGHT_TEST_S3_ENDPOINT ?? "";
  const accessKeyId = env.JOBSIGHT_TEST_S3_ACCESS_KEY_ID;
  const secretAccessKey = env.JOBSIGHT_TEST_S3_SECRET_ACCESS_KEY;
  if (!URL.canParse(endpoint) || !accessKeyId || !secretAccessKey) {
    throw new TestServicesError(
      "INVALID_OVERRIDE",
      "JOBSIGHT_TEST_S3_ENDPOINT needs an http(s) URL plus JOBSIGHT_TEST_S3_ACCESS_KEY_ID and JOBSIGHT_TEST_S3_SECRET_ACCESS_KEY",
    );
  }
  return {
    info: {
      endpoint: endpoint.replace(/\/+$/, ""),
      region: env.JOBSIGHT_TEST_S3_REGION ?? "us-east-1",
      accessKeyId,
      secretAccessKey,
      embedded: false,
    },
    stop: async () => {},
  };
}
