import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.js";
import { helpText, loadConfig } from "./load-config.js";
import { optionSpecs } from "./options.js";

const problemsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  return [];
};

describe("loadConfig", () => {
  it("fills defaults and the host name", () => {
    const c = loadConfig({ argv: ["--cluster", "hpc1"], env: {}, hostname: "n01" });
    expect(c).toMatchObject({
      mode: "node",
      cluster: "hpc1",
      node: "n01",
      intervalSeconds: 10,
      cgroup: { root: "/sys/fs/cgroup", version: "auto" },
      spool: { dir: "/var/lib/jobsight/spool", maxMegabytes: 256 },
      health: { enabled: true, port: 9465, host: "127.0.0.1" },
      kernelLog: { enabled: true, path: "/dev/kmsg" },
      kubelet: {
        podResourcesSocket: "/var/lib/kubelet/pod-resources/kubelet.sock",
        podLogsDir: "/var/log/pods",
      },
    });
  });

  it("layers file < environment < flags", () => {
    const file = JSON.stringify({
      cluster: "fromfile",
      intervalSeconds: 30,
      spool: { dir: "/file" },
      gpu: { mode: "off" },
    });
    const c = loadConfig({
      argv: ["--config", "/etc/jobsight.json", "--interval=5", "--kmsg", "false"],
      env: {
        JOBSIGHT_SPOOL_DIR: "/env",
        JOBSIGHT_INTERVAL_SECONDS: "20",
        JOBSIGHT_URL: "https://js.example.org/",
      },
      readFile: () => file,
      hostname: "h",
    });
    expect(c.cluster).toBe("fromfile");
    expect(c.intervalSeconds).toBe(5);
    expect(c.spool.dir).toBe("/env");
    expect(c.gpu.mode).toBe("off");
    expect(c.kernelLog.enabled).toBe(false);
    expect(c.backend.url).toBe("https://js.example.org");
    // The OTLP export uses the semantic-convention names unless told otherwise.
    expect(c.backend.otlpNames).toBe("conventions");
  });

  it("keeps the 0.1 jobsight.* OTLP names behind --otlp-names legacy, and refuses others", () => {
    const base = { argv: ["--cluster", "c"], hostname: "h" };
    expect(
      loadConfig({ ...base, argv: [...base.argv, "--otlp-names", "legacy"], env: {} }).backend.otlpNames,
    ).toBe("legacy");
    expect(loadConfig({ ...base, env: { JOBSIGHT_OTLP_NAMES: "legacy" } }).backend.otlpNames).toBe("legacy");
    expect(problemsOf(() => loadConfig({ ...base, env: { JOBSIGHT_OTLP_NAMES: "old" } }))).toEqual([
      "backend.otlpNames: must be one of conventions, legacy (from JOBSIGHT_OTLP_NAMES)",
    ]);
  });

  it("reports every problem at once as path: message", () => {
    const problems = problemsOf(() =>
      loadConfig({
        argv: ["--config", "c.json", "--interval", "0", "--mode", "cloud", "--bogus", "1"],
        env: { JOBSIGHT_HEALTH_PORT: "http", JOBSIGHT_URL: "ftp://x" },
        readFile: () =>
          JSON.stringify({ cluster: "Bad Name", spool: { maxMegabytes: "lots", colour: "red" } }),
      }),
    );
    expect(problems).toEqual([
      "--bogus: unknown option (see --help)",
      "spool.colour: unknown setting",
      "spool.maxMegabytes: must be a whole number (in c.json)",
      "health.port: must be a whole number (from JOBSIGHT_HEALTH_PORT)",
      "mode: must be one of node, slurm-controller, kubernetes (from --mode)",
      "intervalSeconds: must be at least 1 (from --interval)",
      "cluster: must be lower-case letters, digits, '-' and '_', at most 63 characters",
      "backend.url: must be an http or https URL",
    ]);
  });

  it("requires a cluster and reports an unreadable file", () => {
    expect(
      problemsOf(() =>
        loadConfig({
          argv: ["--config", "/nope.json"],
          env: {},
          readFile: () => {
            throw new Error("ENOENT: no such file");
          },
        }),
      ),
    ).toEqual([
      "/nope.json: cannot read configuration file: ENOENT: no such file",
      "cluster: is required (--cluster or JOBSIGHT_CLUSTER)",
    ]);
  });

  it("reads kubernetes mode's settings from flags, the environment and the file", () => {
    const c = loadConfig({
      argv: [
        "--mode",
        "kubernetes",
        "--cluster",
        "k8s1",
        "--namespaces",
        "ml, data",
        "--kubeconfig",
        "/etc/kc",
      ],
      env: { JOBSIGHT_LABEL_SELECTOR: "team in (vision,nlp),tier!=web" },
      hostname: "h",
    });
    expect(c.mode).toBe("kubernetes");
    expect(c.kubernetes).toEqual({
      kubeconfig: "/etc/kc",
      inCluster: false,
      namespaces: ["ml", "data"],
      labelSelector: "team in (vision,nlp),tier!=web",
      events: true,
    });
    const fromFile = loadConfig({
      argv: ["--config", "c.json"],
      env: {},
      readFile: () =>
        JSON.stringify({
          mode: "kubernetes",
          cluster: "k8s1",
          kubernetes: { namespaces: ["ml"], inCluster: true },
        }),
    });
    expect(fromFile.kubernetes).toMatchObject({ namespaces: ["ml"], inCluster: true });
    expect(loadConfig({ argv: ["--cluster", "k8s1"], env: {} }).kubernetes.namespaces).toEqual([]);
  });

  it("names every kubernetes setting that is wrong", () => {
    expect(
      problemsOf(() =>
        loadConfig({
          argv: ["--mode", "kubernetes", "--cluster", "k8s1", "--namespaces", "ml,Data_Team", "--in-cluster"],
          env: { JOBSIGHT_KUBECONFIG: "/etc/kc", JOBSIGHT_LABEL_SELECTOR: "app=train,=oops" },
        }),
      ),
    ).toEqual([
      "kubernetes.namespaces: \"Data_Team\" is not a namespace name (lower-case letters, digits and '-', at most 63 characters)",
      "kubernetes.inCluster: give either inCluster or kubeconfig, not both",
      'kubernetes.labelSelector: "=oops" is not a label requirement',
    ]);
    expect(
      problemsOf(() =>
        loadConfig({
          argv: ["--config", "c.json"],
          env: {},
          readFile: () =>
            JSON.stringify({ cluster: "k8s1", kubernetes: { namespaces: [1], events: "sometimes" } }),
        }),
      ),
    ).toEqual([
      "kubernetes.namespaces: must be a comma-separated list or an array of strings (in c.json)",
      "kubernetes.events: must be true or false (in c.json)",
    ]);
  });

  it("reads the progress settings and reports a file path or a pattern without the groups it needs", () => {
    const on = loadConfig({ argv: ["--cluster", "hpc1"], env: {} });
    expect(on.progress).toEqual({ enabled: true, fileName: ".jobsight-progress", output: true });
    const env = { JOBSIGHT_PROGRESS_PATTERN: "(?<done>\\d+) done", JOBSIGHT_PROGRESS_FILE_NAME: "../p" };
    expect(problemsOf(() => loadConfig({ argv: ["--cluster", "hpc1"], env }))).toEqual([
      "progress.fileName: must be a file name, not a path",
      "progress.outputPattern: must name the groups (?<done>…) and (?<total>…), or (?<percent>…)",
    ]);
  });

  it("leaves the Prometheus-format sources off unless given, and checks their URLs and mode", () => {
    expect(loadConfig({ argv: ["--cluster", "hpc1"], env: {} }).prometheus).toEqual({
      cadvisorInsecureSkipVerify: false,
    });
    const on = loadConfig({
      argv: ["--cluster", "hpc1", "--cadvisor-url", "http://127.0.0.1:10255/metrics/cadvisor"],
      env: { JOBSIGHT_NODE_EXPORTER_URL: "http://127.0.0.1:9100/metrics" },
    });
    expect(on.prometheus).toEqual({
      cadvisorUrl: "http://127.0.0.1:10255/metrics/cadvisor",
      cadvisorInsecureSkipVerify: false,
      nodeExporterUrl: "http://127.0.0.1:9100/metrics",
    });
    expect(
      problemsOf(() =>
        loadConfig({
          argv: ["--cluster", "hpc1", "--mode", "slurm-controller", "--cadvisor-url", "unix:/kubelet.sock"],
          env: { JOBSIGHT_NODE_EXPORTER_URL: "127.0.0.1:9100" },
        }),
      ),
    ).toEqual([
      "prometheus.cadvisorUrl: must be an http or https URL",
      "prometheus.nodeExporterUrl: is not a URL",
      "prometheus.cadvisorUrl: is scraped in node mode only (--mode node)",
      "prometheus.nodeExporterUrl: is scraped in node mode only (--mode node)",
    ]);
  });

  it("documents every option in --help", () => {
    const help = helpText();
    for (const s of optionSpecs) {
      expect(help).toContain(s.flag);
      expect(help).toContain(s.env);
    }
  });
});
