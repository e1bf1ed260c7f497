import { describe, expect, it } from "vitest";
import { configFromEnv } from "./config-sources.js";
import { parseServerConfig } from "./parse-config.js";

const tls = { certFile: "/t/tls.crt", keyFile: "/t/tls.key" };

describe("admission settings", () => {
  it("default to a scheduler token, as before", () => {
    expect(parseServerConfig({}).admission).toEqual({ clientAuth: "token", clientNames: [], sources: [] });
  });

  it("read the webhook's caller from the environment a Kubernetes manifest sets", () => {
    const raw = configFromEnv({
      JOBSIGHT_ADMISSION_CLIENT_AUTH: "network",
      JOBSIGHT_ADMISSION_CLUSTER: "k8s-prod",
      JOBSIGHT_ADMISSION_SOURCES: "10.0.0.0/24",
    });
    expect(parseServerConfig(raw).admission).toEqual({
      clientAuth: "network",
      cluster: "k8s-prod",
      clientNames: [],
      sources: ["10.0.0.0/24"],
    });
  });

  it("name every problem at once", () => {
    expect(() =>
      parseServerConfig({
        tls,
        admission: {
          clientAuth: "certificate",
          cluster: "K8S!",
          clientNames: ["kube-apiserver"],
          sources: ["10.0.0.0/33", "fd00::/8"],
        },
      }),
    ).toThrow(
      /admission.cluster: must be a cluster id[\s\S]*admission.clientAuth: certificate needs tls.certFile, tls.keyFile and tls.caFile[\s\S]*admission.sources\[0\]: 10.0.0.0\/33 is not an address range/,
    );
    expect(() => parseServerConfig({ admission: { clientAuth: "network" } })).toThrow(
      /admission.cluster: is required when clientAuth is network/,
    );
    expect(() => parseServerConfig({ admission: { clientNames: ["x"] } })).toThrow(
      /admission.clientNames: applies only when clientAuth is certificate/,
    );
  });

  it("take certificate mode with a client CA", () => {
    const config = parseServerConfig({
      tls: { ...tls, caFile: "/t/ca.crt" },
      admission: { clientAuth: "certificate", cluster: "k8s1" },
    });
    expect(config.admission).toMatchObject({ clientAuth: "certificate", cluster: "k8s1" });
  });
});
