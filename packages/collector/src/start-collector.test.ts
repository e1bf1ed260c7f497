import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "./config/load-config.js";
import { ConfigError } from "./errors.js";
import { silentLogger } from "./log/logger.js";
import { type RunningCollector, startCollector } from "./start-collector.js";
import { CgroupTree } from "./test-support/cgroup-tree.js";
import { FakeKubeApi } from "./test-support/fake-kube-api.js";
import { ProcTree } from "./test-support/proc-tree.js";

const fixtures = join(import.meta.dirname, "modes", "fixtures", "kubernetes");
const fixture = (name: string) => JSON.parse(readFileSync(join(fixtures, `${name}.json`), "utf8"));

type Received = { path: string; key: string; body: { records?: { jobId: string; phase: string }[] } };

describe("startCollector in kubernetes mode", () => {
  let dir: string;
  let api: FakeKubeApi;
  let backend: Server;
  let received: Received[];
  let running: RunningCollector | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "jobsight-k8s-start-"));
    api = new FakeKubeApi();
    await api.start();
    received = [];
    backend = createServer((req, res) => {
      let text = "";
      req.on("data", (d) => {
        text += d;
      });
      req.on("end", () => {
        received.push({
          path: req.url ?? "",
          key: String(req.headers["idempotency-key"]),
          body: JSON.parse(text),
        });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
  });
  afterEach(async () => {
    await running?.stop(1000);
    running = undefined;
    await api.close();
    await new Promise((r) => backend.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  function kubeconfigFile(): string {
    const file = join(dir, "kubeconfig");
    writeFileSync(
      file,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        // `kubectl proxy` style: plain http, which the client accepts only with TLS checks off.
        clusters: [{ name: "fake", cluster: { server: api.url, "insecure-skip-tls-verify": true } }],
        users: [{ name: "collector", user: { token: "fake-token" } }],
        contexts: [{ name: "fake", context: { cluster: "fake", user: "collector" } }],
        "current-context": "fake",
      }),
    );
    return file;
  }

  it("ships pod records through the spool to the backend", async () => {
    const pods = fixture("pod-exit-1");
    api.apply("pods", pods[0]);
    const config = loadConfig({
      argv: [
        "--mode",
        "kubernetes",
        "--cluster",
        "k8s1",
        "--kubeconfig",
        kubeconfigFile(),
        "--namespaces",
        "data",
        "--spool-dir",
        join(dir, "spool"),
        "--url",
        `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
        "--health-port",
        "0",
      ],
      env: {},
    });
    running = await startCollector({ config, logger: silentLogger });
    // Pods in data, events in data and in default (where nodes' events are).
    while (api.openWatches < 3) await new Promise((r) => setTimeout(r, 10));
    api.apply("pods", pods[1]);
    const shipped = () => received.flatMap((r) => r.body.records ?? []).map((j) => `${j.jobId} ${j.phase}`);
    const end = Date.now() + 10_000;
    while (shipped().length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(shipped()).toEqual(["data/nightly-etl-29a7c-5qzvw started", "data/nightly-etl-29a7c-5qzvw ended"]);
    expect(received.every((r) => r.path === "/v1/jobs")).toBe(true);
    const health = (await (await fetch(`http://127.0.0.1:${running.healthPort}/healthz`)).json()) as Record<
      string,
      unknown
    >;
    expect(health).toMatchObject({
      mode: "kubernetes",
      cluster: "k8s1",
      collector: { records: 2, watchErrors: 0 },
      sources: { kubernetes: api.url },
    });
  });

  it("says degraded while the API server refuses", async () => {
    api.failNext = { count: 1_000, status: 503 };
    const config = loadConfig({
      argv: [
        "--mode",
        "kubernetes",
        "--cluster",
        "k8s1",
        "--kubeconfig",
        kubeconfigFile(),
        "--spool-dir",
        join(dir, "s"),
      ],
      env: {},
    });
    running = await startCollector({ config, logger: silentLogger });
    const end = Date.now() + 5000;
    while ((running.report().collector as { failingWatches: number }).failingWatches < 2 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 10));
    expect(running.report()).toMatchObject({ status: "degraded", collector: { failingWatches: 2 } });
  });

  it("refuses a kubeconfig it cannot read as a configuration error, before opening anything", async () => {
    const config = loadConfig({
      argv: [
        "--mode",
        "kubernetes",
        "--cluster",
        "k8s1",
        "--kubeconfig",
        join(dir, "nope"),
        "--spool-dir",
        join(dir, "s"),
      ],
      env: {},
    });
    const error = await startCollector({ config, logger: silentLogger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0].path).toBe("kubernetes.kubeconfig");
  });
});

describe("startCollector in node mode", () => {
  it("refuses an unreadable kubelet token file as a configuration error, before opening the spool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jobsight-node-token-"));
    const spoolDir = join(dir, "spool");
    const config = loadConfig({
      argv: [
        ...["--mode", "node", "--cluster", "hpc1", "--node", "n1", "--spool-dir", spoolDir],
        ...["--cadvisor-url", "https://127.0.0.1:10250/metrics/cadvisor"],
        ...["--cadvisor-token-file", join(dir, "no-token"), "--gpu", "off", "--kmsg", "false"],
      ],
      env: {},
    });
    const error = await startCollector({ config, logger: silentLogger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0].path).toBe("prometheus.cadvisorTokenFile");
    expect(existsSync(spoolDir)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it("stamps kernel-log events with the boot time of the configured proc root", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jobsight-node-start-"));
    const proc = new ProcTree();
    const cgroups = new CgroupTree();
    const events: { time: string; kind: string }[] = [];
    const backend = createServer((req, res) => {
      let text = "";
      req.on("data", (d) => {
        text += d;
      });
      req.on("end", () => {
        if (req.url === "/v1/events") events.push(...JSON.parse(text).events);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
    let running: RunningCollector | undefined;
    try {
      // The host booted nine days ago; the OOM kill came an hour ago.
      const now = Date.now();
      const nineDays = 9 * 86_400_000;
      proc.setBootTime(now - nineDays);
      mkdirSync(join(proc.root, "sys", "kernel", "random"), { recursive: true });
      writeFileSync(
        join(proc.root, "sys", "kernel", "random", "boot_id"),
        "5d1e0f3c-9a7b-4c2d-8e6f-1a2b3c4d5e6f\n",
      );
      const kmsg = join(dir, "kmsg");
      writeFileSync(
        kmsg,
        `3,12,${(nineDays - 3_600_000) * 1000},-;Memory cgroup out of memory: Killed process 4100 (python) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n`,
      );
      const config = loadConfig({
        argv: [
          ...["--mode", "node", "--cluster", "hpc1", "--node", "n01", "--gpu", "off"],
          ...["--cgroup-root", cgroups.root, "--proc-root", proc.root, "--kmsg-path", kmsg],
          ...["--spool-dir", join(dir, "spool"), "--health", "false"],
          ...["--url", `http://127.0.0.1:${(backend.address() as AddressInfo).port}`],
        ],
        env: {},
      });
      running = await startCollector({ config, logger: silentLogger });
      const end = Date.now() + 10_000;
      while (events.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
      expect(events).toMatchObject([{ kind: "oom_kill" }]);
      // btime has whole seconds.
      expect(Math.abs(Date.parse(events[0].time) - (now - 3_600_000))).toBeLessThan(1500);
    } finally {
      await running?.stop(1000);
      await new Promise((r) => backend.close(r));
      proc.cleanup();
      cgroups.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("startCollector with Prometheus-format sources", () => {
  it("reports an endpoint that does not answer as unavailable, and still ships the round", async () => {
    const dir = mkdtempSync(join(tmpdir(), "jobsight-scrape-start-"));
    const proc = new ProcTree();
    const cgroups = new CgroupTree();
    cgroups.slurmJob("4242", { memoryCurrent: 1 << 30 });
    const got: { samples: { jobId: string }[]; events: { kind: string; source?: string }[] } = {
      samples: [],
      events: [],
    };
    const backend = createServer((req, res) => {
      let text = "";
      req.on("data", (d) => {
        text += d;
      });
      req.on("end", () => {
        if (req.url === "/v1/events") got.events.push(...JSON.parse(text).events);
        if (req.url === "/v1/usage") got.samples.push(...JSON.parse(text).samples);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => backend.listen(0, "127.0.0.1", r));
    // A port that was free a moment ago: nothing answers there.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const dead = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/metrics`;
    await new Promise((r) => closed.close(r));
    let running: RunningCollector | undefined;
    try {
      const config = loadConfig({
        argv: [
          ...["--mode", "node", "--cluster", "hpc1", "--node", "n01", "--gpu", "off", "--kmsg", "false"],
          ...["--cgroup-root", cgroups.root, "--proc-root", proc.root, "--cgroup-version", "v2"],
          ...["--spool-dir", join(dir, "spool"), "--health", "false"],
          ...["--cadvisor-url", dead, "--node-exporter-url", dead],
          ...["--url", `http://127.0.0.1:${(backend.address() as AddressInfo).port}`],
        ],
        env: {},
      });
      running = await startCollector({ config, logger: silentLogger });
      // The kernel log is off, so the job is told of it too; only the scraped sources count here.
      const scraped = () => got.events.filter((e) => e.source !== "kmsg");
      const end = Date.now() + 10_000;
      while ((scraped().length < 2 || got.samples.length === 0) && Date.now() < end)
        await new Promise((r) => setTimeout(r, 25));
      expect(got.samples.map((s) => s.jobId)).toContain("4242");
      expect(
        scraped()
          .map((e) => [e.kind, e.source])
          .sort(),
      ).toEqual([
        ["source_unavailable", "cadvisor"],
        ["source_unavailable", "node_exporter"],
      ]);
      expect(running.report()).toMatchObject({
        sources: { cadvisor: "unavailable", node_exporter: "unavailable" },
      });
    } finally {
      await running?.stop(1000);
      await new Promise((r) => backend.close(r));
      proc.cleanup();
      cgroups.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
