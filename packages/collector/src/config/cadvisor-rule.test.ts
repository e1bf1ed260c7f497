import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.js";
import { loadConfig } from "./load-config.js";

const KUBELET = "https://10.0.0.5:10250/metrics/cadvisor";
const SA = "/var/run/secrets/kubernetes.io/serviceaccount";

function problemsOf(argv: string[], env: Record<string, string> = {}): string[] {
  try {
    loadConfig({ argv: ["--cluster", "k8s", ...argv], env });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems.map((p) => `${p.path}: ${p.message}`);
  }
}

describe("the kubelet scrape's token and TLS settings", () => {
  it("are read from flags and the environment for the kubelet's https port, verification on by default", () => {
    const config = loadConfig({
      argv: ["--cluster", "k8s", "--cadvisor-url", KUBELET, "--cadvisor-token-file", `${SA}/token`],
      env: { JOBSIGHT_CADVISOR_CA_FILE: `${SA}/ca.crt` },
    });
    expect(config.prometheus).toEqual({
      cadvisorUrl: KUBELET,
      cadvisorTokenFile: `${SA}/token`,
      cadvisorCaFile: `${SA}/ca.crt`,
      cadvisorInsecureSkipVerify: false,
    });
    const insecure = loadConfig({
      argv: ["--cluster", "k8s", "--cadvisor-url", KUBELET, "--cadvisor-insecure-skip-tls-verify"],
      env: {},
    });
    expect(insecure.prometheus.cadvisorInsecureSkipVerify).toBe(true);
  });

  it("need a cadvisorUrl", () => {
    expect(
      problemsOf(["--cadvisor-token-file", `${SA}/token`, "--cadvisor-ca-file", `${SA}/ca.crt`]),
    ).toEqual([
      "prometheus.cadvisorTokenFile: needs prometheus.cadvisorUrl",
      "prometheus.cadvisorCaFile: needs prometheus.cadvisorUrl",
    ]);
  });

  it("refuse a plain-http URL, which would carry the token in clear text", () => {
    expect(
      problemsOf(
        ["--cadvisor-url", "http://127.0.0.1:10255/metrics/cadvisor", "--cadvisor-token-file", `${SA}/token`],
        {
          JOBSIGHT_CADVISOR_INSECURE_SKIP_TLS_VERIFY: "true",
        },
      ),
    ).toEqual([
      "prometheus.cadvisorTokenFile: would send the token in clear text: scrape the kubelet's https port (https://<node IP>:10250/metrics/cadvisor)",
      "prometheus.cadvisorInsecureSkipVerify: applies to an https prometheus.cadvisorUrl only",
    ]);
  });

  it("take either a CA file or verification off, not both, and a boolean for the latter", () => {
    expect(
      problemsOf([
        "--cadvisor-url",
        KUBELET,
        "--cadvisor-ca-file",
        `${SA}/ca.crt`,
        "--cadvisor-insecure-skip-tls-verify",
      ]),
    ).toEqual([
      "prometheus.cadvisorInsecureSkipVerify: give either cadvisorCaFile or cadvisorInsecureSkipVerify, not both",
    ]);
    expect(
      problemsOf(["--cadvisor-url", KUBELET], { JOBSIGHT_CADVISOR_INSECURE_SKIP_TLS_VERIFY: "maybe" }),
    ).toEqual([
      "prometheus.cadvisorInsecureSkipVerify: must be true or false (from JOBSIGHT_CADVISOR_INSECURE_SKIP_TLS_VERIFY)",
    ]);
  });
});
