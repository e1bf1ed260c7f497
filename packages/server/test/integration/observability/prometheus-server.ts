import { type ChildProcess, execFile, spawn } from "node:child_process";
import { access, constants, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { findFreePort } from "../../../../../test/services/free-port.js";

const run = promisify(execFile);

const DEBIAN_SERVERS = fileURLToPath(
  new URL("../../../../../test/services/debian-servers.sh", import.meta.url),
);

/** Where Debian's `prometheus` package puts the server. */
export const DEBIAN_PROMETHEUS = "/usr/bin/prometheus";

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/**
 * Makes sure Debian's Prometheus is installed (`apt-get install prometheus` when it is missing,
 * by test/services/debian-servers.sh), or throws saying why not.
 */
export async function ensurePrometheus(): Promise<string> {
  if (await executable(DEBIAN_PROMETHEUS)) return DEBIAN_PROMETHEUS;
  try {
    // The tests' one Debian installer: one apt-get at a time, the package's service kept stopped.
    await run("bash", [DEBIAN_SERVERS, "prometheus"], { timeout: 900_000 });
  } catch (error) {
    const e = error as Error & { stderr?: string };
    throw new Error(
      `Prometheus is missing and apt-get install prometheus failed (needs root and a Debian mirror): ${e.stderr?.slice(-500) ?? e.message}`,
    );
  }
  if (!(await executable(DEBIAN_PROMETHEUS)))
    throw new Error(`installed prometheus, yet ${DEBIAN_PROMETHEUS} is missing`);
  return DEBIAN_PROMETHEUS;
}

/** One scrape job: a target on 127.0.0.1, with a bearer token when the endpoint wants one. */
export type ScrapeTarget = { job: string; port: number; path?: string; bearerToken?: string };

/** One recording rule. */
export type RecordingRule = { record: string; expr: string };

/** A running Prometheus of a test's own. */
export type PrometheusServer = {
  url: string;
  /** The value of an instant query with one result, or undefined while it has none. */
  query(expr: string): Promise<number | undefined>;
  /** Polls {@link query} until `accept` says yes; throws with the last value after `timeoutMs`. */
  waitFor(
    expr: string,
    accept: (value: number | undefined) => boolean,
    timeoutMs?: number,
  ): Promise<number | undefined>;
  close(): Promise<void>;
};

/**
 * Starts Debian's Prometheus on 127.0.0.1 (a port picked here) with its data in a fresh temporary
 * folder, scraping `targets` every second and evaluating `rules` every second.
 *
 * @example
 * ```ts
 * const prom = await startPrometheus({ targets: [{ job: "server", port, bearerToken }], rules });
 * await prom.waitFor("up", (v) => v === 1);
 * await prom.close();
 * ```
 */
export async function startPrometheus(options: {
  targets: ScrapeTarget[];
  rules: RecordingRule[];
}): Promise<PrometheusServer> {
  const binary = await ensurePrometheus();
  const dir = await mkdtemp(join(tmpdir(), "jobsight-prometheus-"));
  const scrapeConfigs = [];
  for (const t of options.targets) {
    const job: Record<string, unknown> = {
      job_name: t.job,
      metrics_path: t.path ?? "/metrics",
      static_configs: [{ targets: [`127.0.0.1:${t.port}`] }],
    };
    if (t.bearerToken) {
      const file = join(dir, `${t.job}.token`);
      await writeFile(file, t.bearerToken, { mode: 0o600 });
      job.authorization = { type: "Bearer", credentials_file: file };
    }
    scrapeConfigs.push(job);
  }
  await writeFile(
    join(dir, "rules.yml"),
    stringify({ groups: [{ name: "jobsight", interval: "1s", rules: options.rules }] }),
  );
  await writeFile(
    join(dir, "prometheus.yml"),
    stringify({
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: [join(dir, "rules.yml")],
      scrape_configs: scrapeConfigs,
    }),
  );
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  let log = "";
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${log}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`prometheus did not become ready within 60 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const query = async (expr: string) => {
    const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data?: { resultType: string; result: Array<{ value: [number, string] }> };
    };
    if (body.status !== "success") throw new Error(`query ${expr} failed: ${body.error}`);
    const result = body.data?.result ?? [];
    if (result.length > 1) throw new Error(`query ${expr} gave ${result.length} series, expected one`);
    return result.length === 0 ? undefined : Number(result[0].value[1]);
  };

  return {
    url,
    query,
    async waitFor(expr, accept, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      let last: number | undefined;
      for (;;) {
        last = await query(expr);
        if (accept(last)) return last;
        if (Date.now() > until)
          throw new Error(`${expr} is still ${last} after ${timeoutMs} ms; prometheus log: ${log}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    },
    close,
  };
}
