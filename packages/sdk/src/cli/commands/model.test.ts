import type { ModelVersion, Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const TOKENS: Record<string, Role[]> = { "admin-token": ["admin"], "platform-token": ["platform"] };

function model(version: string, status: ModelVersion["status"], day: number): ModelVersion {
  const at = new Date(Date.UTC(2026, 10, day, 2)).toISOString();
  return {
    version,
    status,
    createdAt: at,
    ...(status === "active" || status === "retired" ? { activatedAt: at } : {}),
    trigger: "schedule",
    resources: ["memory", "walltime"],
    trainingJobs: 1000 * day,
    accepted: status !== "rejected",
    reasons: [],
    backtest: { memory: { evaluated: 200, coverage: 0.925, underPredictionRate: 0.021 } },
  };
}

function setup(token = "admin-token") {
  const fake = createFakeServer({ tokens: TOKENS, now: () => new Date("2026-12-02T16:30:00Z") });
  fake.store.models.push(model("m-3", "rejected", 3), model("m-2", "active", 2), model("m-1", "retired", 1));
  const cap = captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0" },
  });
  return { fake, ...cap };
}

describe("jobsight model status", () => {
  it("names the version in service and lists every version (platform role is enough)", async () => {
    const { io, stdout } = setup("platform-token");
    expect(await runCli(["model", "status"], io)).toBe(0);
    expect(stdout()).toBe(
      [
        "in service: m-2",
        "",
        "version  status    trained           trigger   jobs  resources        memory coverage / under",
        "m-3      rejected  2026-11-03 02:00  schedule  3000  memory,walltime  92.5% / 2.1%",
        "m-2      active    2026-11-02 02:00  schedule  2000  memory,walltime  92.5% / 2.1%",
        "m-1      retired   2026-11-01 02:00  schedule  1000  memory,walltime  92.5% / 2.1%",
        "",
      ].join("\n"),
    );
  });

  it("prints the ModelStatus document with --json, and says when no model is trained", async () => {
    const { io, stdout } = setup();
    expect(await runCli(["model", "status", "--json"], io)).toBe(0);
    const status = JSON.parse(stdout());
    expect(status).toMatchObject({ activeVersion: "m-2", servedVersion: "m-2" });
    expect(status.models.map((m: ModelVersion) => m.version)).toEqual(["m-3", "m-2", "m-1"]);

    const empty = createFakeServer();
    const none = captureIo({ fetch: empty.fetch, env: { JOBSIGHT_URL: empty.baseUrl } });
    expect(await runCli(["model", "status"], none.io)).toBe(0);
    expect(none.stdout()).toBe("in service: none (no model trained yet)\n");
  });
});

describe("jobsight model promote and rollback", () => {
  it("promotes a version, then rolls back to the one it replaced", async () => {
    const { io, fake, stdout } = setup();
    expect(await runCli(["model", "promote", "m-3"], io)).toBe(0);
    expect(stdout()).toBe("model m-3 is in service (was m-2)\n");
    expect(fake.requests.at(-1)).toMatchObject({ method: "POST", path: "/v1/models/m-3/promote" });

    const back = captureIo({
      fetch: fake.fetch,
      env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: "admin-token" },
    });
    expect(await runCli(["model", "rollback", "--json"], back.io)).toBe(0);
    expect(JSON.parse(back.stdout())).toEqual({
      previousVersion: "m-3",
      activeVersion: "m-2",
      servedVersion: "m-2",
    });
  });

  it("exits 2 with a clear message when there is nothing to roll back to", async () => {
    const { io, fake, stderr } = setup();
    fake.store.models.splice(0, fake.store.models.length, model("m-1", "active", 1));
    expect(await runCli(["model", "rollback"], io)).toBe(2);
    expect(stderr()).toBe(
      "jobsight: no earlier model to go back to; 'jobsight model status' lists the versions\n",
    );
  });

  it("exits 2 for an unknown version, a missing version and a platform token", async () => {
    const unknown = setup();
    expect(await runCli(["model", "promote", "m-9"], unknown.io)).toBe(2);
    expect(unknown.stderr()).toMatch(/failed with HTTP 404: Model m-9 not found \[NOT_FOUND\]/);

    const missing = setup();
    expect(await runCli(["model", "promote"], missing.io)).toBe(2);
    expect(missing.stderr()).toBe(
      "jobsight: model promote needs exactly one argument: jobsight model promote <version> [--json]\n",
    );
    expect(missing.fake.requests).toEqual([]);

    const platform = setup("platform-token");
    expect(await runCli(["model", "rollback"], platform.io)).toBe(2);
    expect(platform.stderr()).toMatch(
      /POST \/v1\/models\/rollback failed with HTTP 403: .*\[PERMISSION_DENIED\]/,
    );
  });
});
