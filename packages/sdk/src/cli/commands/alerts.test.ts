import type { Alert, Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { createClient } from "../../client.js";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const TOKENS: Record<string, Role[]> = { "alice-token": ["researcher"], "collector-token": ["collector"] };

function alert(id: string, extra: Partial<Alert>): Alert {
  return {
    id,
    cluster: "hpc1",
    jobId: "4242",
    user: "alice",
    rule: "gpus-idle",
    severity: "warning",
    state: "firing",
    firstSeen: "2026-12-02T10:00:00Z",
    lastSeen: "2026-12-02T10:30:00Z",
    message: "All 2 GPUs of the job stayed below 5% utilisation for 30 min (highest 1%): reserved and idle.",
    evidence: [{ kind: "metric", source: "nvidia-smi", field: "utilization.gpu", text: "GPU 0 at most 1%" }],
    ...extra,
  };
}

function setup(token = "alice-token") {
  const fake = createFakeServer({ tokens: TOKENS });
  fake.store.alerts.push(
    alert("a1", {}),
    alert("a2", {
      jobId: "4243",
      rule: "memory-near-limit",
      severity: "critical",
      lastSeen: "2026-12-02T10:31:00Z",
      projectedAt: "2026-12-02T10:36:00Z",
      message:
        "Memory on n1 is at 95% of its 9.8 GiB limit and rising 100 MiB/min: the limit in about 5 min.",
    }),
    alert("a3", {
      jobId: "4100",
      state: "resolved",
      lastSeen: "2026-12-01T08:00:00Z",
      resolvedAt: "2026-12-01T08:01:00Z",
    }),
  );
  const cap = captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0" },
  });
  return { fake, ...cap };
}

describe("client.alerts.list", () => {
  it("lists alerts typed and checked against the schema, with the filters as the query", async () => {
    const { fake } = setup();
    const client = createClient({ baseUrl: fake.baseUrl, token: "alice-token", fetch: fake.fetch });
    const firing = await client.alerts.list({ state: "firing", cluster: "hpc1", limit: 10 });
    expect(firing.map((a) => [a.id, a.rule, a.projectedAt])).toEqual([
      ["a2", "memory-near-limit", "2026-12-02T10:36:00Z"],
      ["a1", "gpus-idle", undefined],
    ]);
    expect(fake.requests.at(-1)).toMatchObject({
      path: "/v1/alerts",
      query: { state: "firing", cluster: "hpc1", limit: "10" },
    });
    expect(await client.alerts.list()).toHaveLength(3);
  });
});

describe("jobsight alerts", () => {
  it("prints the firing alerts as a table, most recently seen first", async () => {
    const { io, stdout } = setup();
    expect(await runCli(["alerts", "--state", "firing"], io)).toBe(0);
    expect(stdout().split("\n")[0]).toMatch(
      /^state\s+severity\s+rule\s+cluster\s+job\s+user\s+last seen\s+message$/,
    );
    expect(stdout().split("\n").slice(1, 3)).toEqual([
      expect.stringMatching(
        /^firing\s+critical\s+memory-near-limit\s+hpc1\s+4243\s+alice\s+2026-12-02 10:31\s+Memory on n1/,
      ),
      expect.stringMatching(
        /^firing\s+warning\s+gpus-idle\s+hpc1\s+4242\s+alice\s+2026-12-02 10:30\s+All 2 GPUs/,
      ),
    ]);
    expect(stdout().split("\n")).toHaveLength(4);
  });

  it("prints JSON with the evidence under --json", async () => {
    const { io, stdout } = setup();
    expect(await runCli(["alerts", "--state", "resolved", "--json"], io)).toBe(0);
    const { alerts } = JSON.parse(stdout());
    expect(alerts.map((a: Alert) => [a.id, a.state, a.evidence[0].source])).toEqual([
      ["a3", "resolved", "nvidia-smi"],
    ]);
  });

  it("says so when there is none, refuses a bad --state, and exits 2 for a token that may not read alerts", async () => {
    const empty = setup();
    empty.fake.store.alerts.length = 0;
    expect(await runCli(["alerts"], empty.io)).toBe(0);
    expect(empty.stdout()).toBe("no alerts\n");
    const bad = setup();
    expect(await runCli(["alerts", "--state", "open"], bad.io)).toBe(2);
    expect(bad.stderr()).toBe("jobsight: --state must be firing or resolved, not open\n");
    const collector = setup("collector-token");
    expect(await runCli(["alerts"], collector.io)).toBe(2);
    const help = setup();
    expect(await runCli(["alerts", "--help"], help.io)).toBe(0);
    expect(help.stdout()).toContain("Usage: jobsight alerts [--state firing|resolved]");
  });
});

describe("jobsight alerts preferences", () => {
  it("prints the preferences, changes only the options given, and refuses bad values", async () => {
    const { io, stdout, stderr, fake } = setup();
    expect(await runCli(["alerts", "preferences"], io)).toBe(0);
    expect(JSON.parse(stdout())).toMatchObject({
      enabled: true,
      channels: ["email", "webhook"],
      digest: true,
    });
    const set = setup();
    set.fake.store.alertPreferences.set("researcher", {
      user: "researcher",
      enabled: true,
      channels: ["email", "webhook"],
      digest: true,
    });
    expect(
      await runCli(
        [
          "alerts",
          "preferences",
          "--channels",
          "email",
          "--quiet",
          "22:00-07:00",
          "--time-zone",
          "Europe/Berlin",
        ],
        set.io,
      ),
    ).toBe(0);
    expect(JSON.parse(set.stdout())).toMatchObject({
      enabled: true,
      channels: ["email"],
      digest: true,
      quietHours: { start: "22:00", end: "07:00", timeZone: "Europe/Berlin" },
    });
    expect(await runCli(["alerts", "preferences", "--quiet", "22-7"], io)).toBe(2);
    expect(stderr()).toContain("--quiet must be HH:MM-HH:MM");
    expect(fake.requests.filter((r) => r.operationId === "setAlertPreferences")).toHaveLength(0);
  });
});
