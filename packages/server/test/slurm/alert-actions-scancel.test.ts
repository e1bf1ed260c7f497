// The gpus-idle action under policy on the real SLURM cluster: a real running job, warned by its
// alert, is cancelled after the grace period with the real scancel (the configured command,
// through `alerts.actions.scancelCommand`), and sacct records it CANCELLED; a job id the
// controller does not know is recorded as failed with scancel's own words. Each decision is in
// the audit log (GET /v1/alerts/actions). The GPU readings are the one fixture: this machine has
// no GPU. Then a repeat offender's next submission, through cli_filter.lua in the real sbatch, is
// queued held (JobHeldUser).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AlertActionList, JobRecord, JobSpec, UsageSample } from "@jobsight/schemas";
import fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  describeSlurm,
  sacctParsable,
  sbatch,
  slurmClient,
  slurmCluster,
  squeueJson,
  waitForJob,
} from "../../../../test/slurm/index.js";
import { buildApp } from "../../src/app.js";
import { parseServerConfig } from "../../src/config/parse-config.js";
import {
  alertActionsFromConfig,
  submissionHoldFromConfig,
} from "../../src/intelligence/alerts/actions/actions-from-config.js";
import { AlertMonitor } from "../../src/intelligence/alerts/alert-monitor.js";
import { alertThresholds } from "../../src/intelligence/alerts/alerts-from-config.js";
import { SlurmAdvisor } from "../../src/intelligence/schedulers/slurm/slurm-advisor.js";
import { slurmAdviceRoute } from "../../src/intelligence/schedulers/test-support/scheduler-routes.js";
import { openTestStorage, type StorageFixture } from "../integration/storage-fixture.js";
import { bearer, collectorPrincipal, PRINCIPALS } from "../integration/test-server-config.js";
import { cliFilterClient, filteredSbatch } from "./filtered-sbatch.js";

const { platform } = PRINCIPALS;
const NOW = Date.now();
const minutesAgo = (m: number) => new Date(NOW - m * 60_000).toISOString();
const GiB = 2 ** 30;

describeSlurm("cancelling an idle-GPU job with scancel on the real cluster", () => {
  let fx: StorageFixture;
  let app: FastifyInstance;
  let objects: string;
  let monitor: (minutesLater: number) => AlertMonitor;
  let jobId: string;
  let user: string;
  let config: ReturnType<typeof parseServerConfig>;
  const cluster = "slurm1";
  const collector = collectorPrincipal(cluster);

  const post = async (url: string, payload: unknown, token = collector.token) => {
    const res = await app.inject({ method: "POST", url, payload: payload as object, headers: bearer(token) });
    expect(res.statusCode, res.body).toBeLessThan(300);
  };

  beforeAll(async () => {
    const slurm = slurmCluster();
    // A job that would run for 10 minutes, holding nothing but its allocation.
    jobId = await sbatch("#!/bin/bash\nsleep 600\n", ["--time=15", "--mem=32M", "--job-name=idle-gpu"]);
    await waitForJob(jobId, ["RUNNING"], 60_000);
    const [row] = await sacctParsable(["JobID", "User"], ["-j", jobId, "-X"]);
    user = row?.User || "root";

    fx = await openTestStorage("slurm_actions");
    objects = await mkdtemp(join(tmpdir(), "jobsight-slurm-actions-"));
    config = parseServerConfig({
      objectStore: { dir: objects },
      rateLimit: { enabled: false },
      http: { logLevel: "silent" },
      auth: { tokens: [platform, collector] },
      alerts: {
        // The test runs the evaluations, on its own clock: the app's own loop stays off.
        enabled: false,
        actions: {
          enabled: true,
          dryRun: false,
          graceMinutes: 1,
          holdRepeatOffenders: true,
          clusters: [cluster],
          // As a site whose server is not on a SLURM host would write `ssh slurm-ctl scancel`.
          scancelCommand: `env SLURM_CONF=${slurm.confPath} ${join(slurm.binDir, "scancel")}`,
        },
      },
    });
    app = await buildApp({ config, storage: fx.storage });
    const alerts = config.alerts;
    if (!alerts) throw new Error("no alerts section parsed");
    const silent = { info() {}, warn() {}, error() {} };
    const actions = alertActionsFromConfig(alerts.actions, alerts.maxSampleAgeMinutes, fx.storage, silent);
    if (!actions) throw new Error("alerts.actions.enabled gave no actions");
    monitor = (minutesLater) =>
      new AlertMonitor({
        storage: fx.storage,
        thresholds: alertThresholds(alerts),
        actions,
        now: () => new Date(NOW + minutesLater * 60_000),
      });
    await post("/v1/clusters", { id: cluster, name: cluster, scheduler: "slurm" }, platform.token);
    const record = (id: string): JobRecord => ({
      cluster,
      jobId: id,
      phase: "started",
      source: "slurm-controller",
      spec: {
        cluster,
        scheduler: "slurm",
        user,
        jobName: "idle-gpu",
        requested: { cores: 1, gpus: 1, memoryBytes: 32 * 2 ** 20 },
      },
      submittedAt: minutesAgo(45),
      startedAt: minutesAgo(41),
    });
    // 999999: a job the controller has never had.
    await post("/v1/jobs", { records: [record(jobId), record("999999")] });
    const idle = (id: string): UsageSample[] =>
      Array.from({ length: 41 }, (_, i) => ({
        cluster,
        jobId: id,
        node: slurm.node.name,
        user,
        time: minutesAgo(40 - i),
        gpus: [{ index: 0, utilizationPercent: 0, memoryUsedBytes: GiB, memoryTotalBytes: 40 * GiB }],
      }));
    await post("/v1/usage", {
      idempotencyKey: `slurm-actions-${jobId}`,
      samples: [...idle(jobId), ...idle("999999")],
    });
  });

  afterAll(async () => {
    if (jobId)
      await slurmClient()
        .scancel(jobId)
        .catch(() => {});
    await app?.close();
    await fx?.dispose();
    if (objects) await rm(objects, { recursive: true, force: true });
  });

  it("warns first, cancels after the grace period, and sacct records the job CANCELLED", async () => {
    const warned = await monitor(0).evaluate();
    expect(warned).toMatchObject({ firing: 2, actions: { due: 0, done: 0 } });
    expect((await waitForJob(jobId, ["RUNNING"], 10_000)).state).toBe("RUNNING");

    const acted = await monitor(2).evaluate();
    expect(acted.actions).toEqual({ due: 2, refused: 0, dryRun: 0, done: 1, failed: 1 });
    const outcome = await waitForJob(jobId, ["CANCELLED"], 60_000);
    expect(outcome.state).toBe("CANCELLED");

    const res = await app.inject({
      method: "GET",
      url: "/v1/alerts/actions",
      headers: bearer(platform.token),
    });
    const log = (res.json() as AlertActionList).actions;
    const scancel = join(slurmCluster().binDir, "scancel");
    const done = log.find((a) => a.jobId === jobId)!;
    expect(done).toMatchObject({
      kind: "cancel-job",
      rule: "gpus-idle",
      outcome: "done",
      executor: "scancel",
      user,
    });
    expect(done.detail).toBe(
      `env SLURM_CONF=${slurmCluster().confPath} ${scancel} --verbose ${jobId}: exit 0: scancel: Terminating job ${jobId}`,
    );
    expect(done.evidence[0]).toMatchObject({ source: "nvidia-smi", field: "utilization.gpu", gpuIndex: 0 });
    expect(new Set(done.evidence[0].values)).toEqual(new Set([0]));
    const failed = log.find((a) => a.jobId === "999999")!;
    expect(failed.outcome).toBe("failed");
    // scancel exits 0 for an id the controller does not know; its --verbose error line tells.
    expect(failed.detail).toMatch(
      /999999: exit 0: .*scancel: error: Kill job error on job id 999999: Invalid job id specified/s,
    );

    // The next evaluation acts on neither again: one action per alert episode.
    expect((await monitor(3).evaluate()).actions).toMatchObject({ done: 0, failed: 0 });
  });

  it("holds a repeat offender's next submission through cli_filter in the real sbatch", async () => {
    const slurm = slurmCluster();
    const judge = submissionHoldFromConfig(config.alerts, fx.storage);
    if (!judge) throw new Error("alerts.actions.holdRepeatOffenders gave no hold");
    const judged: JobSpec[] = [];
    const advisor = new SlurmAdvisor({
      cluster,
      policy: { name: "site" },
      // No model here: the advice fails open, and the hold still stands.
      predict: async () => Promise.reject(new Error("no model")),
      hold: async (spec, c) => {
        judged.push(spec);
        return judge(spec, c);
      },
    });
    const advice = fastify();
    await advice.register(slurmAdviceRoute, { advisor });
    const url = await advice.listen({ host: "127.0.0.1", port: 0 });
    const client = await cliFilterClient(slurm);
    const script = join(objects, "assemble.sh");
    await writeFile(
      script,
      "#!/bin/bash\n#SBATCH --job-name=assemble\n#SBATCH --mem=48\n#SBATCH --ntasks=1\nsleep 1\n",
    );
    const env = client.env({ JOBSIGHT_URL: url, JOBSIGHT_CLUSTER: cluster, USER: user });
    const ids: string[] = [];
    try {
      // Not yet a repeat offender: submitted as written.
      const first = await filteredSbatch(slurm, script, [], env);
      ids.push(first.id);
      expect(judged).toHaveLength(1);
      const reason = async (id: string) =>
        (await squeueJson(["-j", id])).jobs.find((j) => String(j.job_id) === id)?.state_reason;
      expect(await reason(first.id)).not.toBe("JobHeldUser");
      // Three earlier jobs of this shape (as the filter reported it) killed for memory.
      const spec = judged[0];
      await post("/v1/jobs", {
        records: [1, 2, 3].map(
          (k): JobRecord => ({
            cluster,
            jobId: `90000${k}`,
            phase: "ended",
            source: "slurm-controller",
            spec: { ...spec, cluster },
            submittedAt: minutesAgo(300 + k),
            startedAt: minutesAgo(299 + k),
            endedAt: minutesAgo(200 + k),
            outcome: { state: "OUT_OF_MEMORY" },
          }),
        ),
      });
      const held = await filteredSbatch(slurm, script, [], env);
      ids.push(held.id);
      expect(held.stderr).toMatch(/sbatch: lua: jobsight: held: 3 of your assemble jobs/);
      expect(await reason(held.id)).toBe("JobHeldUser");
      const res = await app.inject({
        method: "GET",
        url: "/v1/alerts/actions?jobId=submission:assemble",
        headers: bearer(platform.token),
      });
      const [hold] = (res.json() as AlertActionList).actions;
      expect(hold).toMatchObject({
        kind: "hold-submission",
        rule: "repeated-oom",
        outcome: "done",
        executor: "submit-filter",
      });
      expect(hold.evidence.map((e) => e.textValue)).toEqual([
        "OUT_OF_MEMORY",
        "OUT_OF_MEMORY",
        "OUT_OF_MEMORY",
      ]);
    } finally {
      for (const id of ids)
        await slurmClient()
          .scancel(id)
          .catch(() => {});
      await advice.close();
      await client.dispose();
    }
  });
});
