import type { AlertAction, Role } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { captureIo } from "../../test-support/capture-io.js";
import { createFakeServer } from "../../testing/fake-server.js";
import { runCli } from "../run-cli.js";

const TOKENS: Record<string, Role[]> = { "alice-token": ["researcher"], "collector-token": ["collector"] };

function action(id: string, extra: Partial<AlertAction>): AlertAction {
  return {
    id,
    at: "2026-12-02T11:15:00Z",
    cluster: "hpc1",
    jobId: "4242",
    user: "alice",
    kind: "cancel-job",
    rule: "gpus-idle",
    outcome: "dry-run",
    executor: "scancel",
    warnedAt: "2026-12-02T10:45:00Z",
    message: "Would cancel job 4242: its GPUs stayed idle 30 min after the warning (dry run).",
    evidence: [{ kind: "metric", source: "nvidia-smi", field: "utilization.gpu", text: "GPU 0 at most 1%" }],
    ...extra,
  };
}

function setup(token = "alice-token") {
  const fake = createFakeServer({ tokens: TOKENS });
  fake.store.alertActions.push(
    action("x1", {}),
    action("x2", {
      at: "2026-12-02T12:00:00Z",
      jobId: "4250",
      outcome: "failed",
      message: "Tried to cancel job 4250: its GPUs stayed idle 30 min after the warning.",
      detail: "scancel exited 1: Invalid job id specified",
    }),
    action("x3", { at: "2026-12-01T09:00:00Z", cluster: "hpc2", jobId: "77", kind: "hold-submission" }),
  );
  const cap = captureIo({
    fetch: fake.fetch,
    env: { JOBSIGHT_URL: fake.baseUrl, JOBSIGHT_TOKEN: token, JOBSIGHT_RETRIES: "0" },
  });
  return { fake, ...cap };
}

describe("jobsight alerts actions", () => {
  it("prints the action log newest first: when, what, to which job, since when warned, and why", async () => {
    const { io, stdout } = setup();
    expect(await runCli(["alerts", "actions"], io)).toBe(0);
    const lines = stdout().split("\n");
    expect(lines[0]).toMatch(/^at\s+outcome\s+action\s+rule\s+cluster\s+job\s+user\s+warned\s+message$/);
    expect(lines.slice(1, 4)).toEqual([
      expect.stringMatching(
        /^2026-12-02 12:00\s+failed\s+cancel-job\s+gpus-idle\s+hpc1\s+4250\s+alice\s+2026-12-02 10:45\s+Tried to cancel job 4250.*\(scancel exited 1: Invalid job id specified\)$/,
      ),
      expect.stringMatching(
        /^2026-12-02 11:15\s+dry-run\s+cancel-job\s+gpus-idle\s+hpc1\s+4242\s+alice\s+.*Would cancel/,
      ),
      expect.stringMatching(/^2026-12-01 09:00\s+dry-run\s+hold-submission\s+gpus-idle\s+hpc2\s+77\s/),
    ]);
    expect(lines).toHaveLength(5);
  });

  it("narrows by cluster, job and limit, and prints JSON with the evidence under --json", async () => {
    const { io, stdout, fake } = setup();
    expect(await runCli(["alerts", "actions", "--cluster", "hpc1", "--job", "4242", "--json"], io)).toBe(0);
    const { actions } = JSON.parse(stdout());
    expect(actions.map((a: AlertAction) => [a.id, a.outcome, a.evidence[0].source])).toEqual([
      ["x1", "dry-run", "nvidia-smi"],
    ]);
    expect(fake.requests.at(-1)).toMatchObject({
      path: "/v1/alerts/actions",
      query: { cluster: "hpc1", jobId: "4242" },
    });
    const limited = setup();
    expect(await runCli(["alerts", "actions", "--limit", "1", "--json"], limited.io)).toBe(0);
    expect(JSON.parse(limited.stdout()).actions.map((a: AlertAction) => a.id)).toEqual(["x2"]);
  });

  it("says so when there is none, refuses a bad --limit or an argument, and exits 2 for a refused token", async () => {
    const empty = setup();
    empty.fake.store.alertActions.length = 0;
    expect(await runCli(["alerts", "actions"], empty.io)).toBe(0);
    expect(empty.stdout()).toBe("no actions\n");
    const bad = setup();
    expect(await runCli(["alerts", "actions", "--limit", "0"], bad.io)).toBe(2);
    expect(bad.stderr()).toBe("jobsight: --limit must be a whole number from 1 to 1000, not 0\n");
    const extra = setup();
    expect(await runCli(["alerts", "actions", "4242"], extra.io)).toBe(2);
    expect(extra.stderr()).toContain("alerts actions takes no arguments");
    const collector = setup("collector-token");
    expect(await runCli(["alerts", "actions"], collector.io)).toBe(2);
    const help = setup();
    expect(await runCli(["alerts", "actions", "--help"], help.io)).toBe(0);
    expect(help.stdout()).toContain("Usage: jobsight alerts actions [--cluster <id>]");
  });
});
