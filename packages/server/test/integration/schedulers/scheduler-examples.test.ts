import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ADMISSION_PATH,
  SLURM_ADVICE_PATH,
} from "../../../src/intelligence/schedulers/test-support/scheduler-routes.js";

// The example manifests and scripts name routes, ports and secrets of the server; these checks
// keep them from drifting apart. (Plain text: the server does not depend on a YAML parser.)
const read = (path: string) =>
  readFileSync(new URL(`../../../../../examples/${path}`, import.meta.url), "utf8");

// examples/kubernetes/test/manifests.test.ts checks the manifests in full (schemas, names, flags).
describe("examples/kubernetes", () => {
  const webhook = read("kubernetes/base/mutating-webhook.yaml");
  const service = read("kubernetes/base/server-service.yaml");
  const deployment = read("kubernetes/base/server-deployment.yaml");
  const certificate = read("kubernetes/base/certificate.yaml");

  it("configures the webhook to fail open, quickly, for v1 reviews of opted-in namespaces", () => {
    expect(webhook).toMatch(/^kind: MutatingWebhookConfiguration$/m);
    expect(webhook).toMatch(/^\s+failurePolicy: Ignore$/m);
    expect(webhook).toMatch(/^\s+timeoutSeconds: 3$/m);
    expect(webhook).toMatch(/^\s+sideEffects: None$/m);
    expect(webhook).toMatch(/^\s+admissionReviewVersions: \["v1"\]$/m);
    expect(webhook).toMatch(/namespaceSelector:\s+matchLabels:\s+jobsight\.io\/resize: enabled/);
    expect(webhook).toMatch(/operations: \["CREATE"\]/);
  });

  it("points the webhook at the server's route through the service and its certificate", () => {
    expect(webhook).toContain(`path: ${ADMISSION_PATH}`);
    expect(webhook).toMatch(/service:\s+name: jobsight\s+namespace: jobsight/);
    expect(service).toMatch(/name: jobsight\s+namespace: jobsight/);
    expect(service).toMatch(/port: 443\s+targetPort: https/);
    expect(deployment).toMatch(/name: https\s+containerPort: 8443/);
    expect(deployment).toMatch(/secretName: jobsight-tls/);
    expect(certificate).toMatch(/secretName: jobsight-tls/);
    expect(certificate).toContain("- jobsight.jobsight.svc");
    expect(webhook).toContain("cert-manager.io/inject-ca-from: jobsight/jobsight-tls");
    // The API server sends no bearer token: the server takes its calls without one.
    expect(deployment).toMatch(/name: JOBSIGHT_ADMISSION_CLIENT_AUTH\s+value: network/);
  });
});

describe("examples/slurm", () => {
  it("posts to the server's advice route from both filters", () => {
    for (const script of ["slurm/cli_filter.lua", "slurm/job_submit.lua"])
      expect(read(script)).toContain(`"${SLURM_ADVICE_PATH}"`);
  });
});
