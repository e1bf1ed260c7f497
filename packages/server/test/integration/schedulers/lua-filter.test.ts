import { createServer, type Server, type Socket } from "node:net";
import type { JobSpec, ResourcePrediction } from "@jobsight/schemas";
import fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SlurmAdvisor } from "../../../src/intelligence/schedulers/slurm/slurm-advisor.js";
import { slurmAdviceRoute } from "../../../src/intelligence/schedulers/test-support/scheduler-routes.js";
import { type LuaValue, removeInputs, runPlugin, tools } from "./lua/lua-runner.js";

const GiB = 2 ** 30;

if (tools.reason) console.warn(`[lua-filter] skipped: ${tools.reason}`);

const rec = (resource: ResourcePrediction["resource"], value: number): ResourcePrediction => ({
  resource,
  status: "ok",
  unit:
    resource === "memory"
      ? "bytes"
      : resource === "walltime"
        ? "seconds"
        : resource === "gpus"
          ? "devices"
          : "cores",
  value,
  confidence: 0.97,
  evidence: { group: "user=alice", jobs: 37 },
});

const sbatchOptions = (extra: Record<string, LuaValue> = {}) => ({
  options: {
    type: "sbatch",
    mem: "16G",
    time: "04:00:00",
    "cpus-per-task": "8",
    partition: "batch",
    "job-name": "train",
    argv: ["/home/alice/train.sh", "--fast"],
    ...extra,
  },
  pack_offset: 0,
});

describe.skipIf(!tools.lua)("SLURM Lua filters against a running Jobsight server", () => {
  let app: FastifyInstance;
  let url: string;
  const specs: JobSpec[] = [];
  const authorizations: (string | undefined)[] = [];
  let resources: ResourcePrediction[] = [];
  const silent: Server[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const advisor = new SlurmAdvisor({
      cluster: "hpc1",
      policy: { name: "default", neverLower: ["gpus"], maxDecrease: { walltime: 0.9 } },
      predict: async (spec) => {
        specs.push(spec);
        return { modelVersion: "m-9", resources };
      },
    });
    app = fastify();
    app.addHook("onRequest", async (request) => {
      authorizations.push(request.headers.authorization);
    });
    await app.register(slurmAdviceRoute, { advisor });
    const lenient = new SlurmAdvisor({
      cluster: "hpc1",
      policy: { name: "lenient" },
      predict: async () => ({ modelVersion: "m-9", resources }),
    });
    await app.register(slurmAdviceRoute, { prefix: "/lenient", advisor: lenient });
    const failing = new SlurmAdvisor({
      cluster: "hpc1",
      policy: { name: "p" },
      predict: async () => Promise.reject(new Error("model missing")),
    });
    await app.register(slurmAdviceRoute, { prefix: "/failing", advisor: failing });
    // A repeat offender's submission: held, even though the predictor fails open.
    const holding = new SlurmAdvisor({
      cluster: "hpc1",
      policy: { name: "p" },
      predict: async () => Promise.reject(new Error("model missing")),
      hold: async (spec) =>
        spec.user === "carol"
          ? { hold: true, message: "jobsight: held: 3 of your assemble jobs were killed for memory" }
          : undefined,
    });
    await app.register(slurmAdviceRoute, { prefix: "/holding", advisor: holding });
    app.get("/garbage/v1/schedulers/slurm/advice", async () => "nope");
    app.post("/garbage/v1/schedulers/slurm/advice", async (_req, reply) =>
      reply.type("text/html").send("<html><body>502 Bad Gateway</body></html>"),
    );
    app.post("/bad-values/v1/schedulers/slurm/advice", async (_req, reply) =>
      reply
        .type("text/plain")
        .send("jobsight-advice 1\nstatus=changed\nset.mem=8192; rm -rf /\nmessage=evil\n"),
    );
    app.post("/unknown-key/v1/schedulers/slurm/advice", async (_req, reply) =>
      reply
        .type("text/plain")
        .send("jobsight-advice 1\nstatus=changed\nset.partition=debug\nset.mem=8192\nmessage=x\n"),
    );
    url = await app.listen({ host: "127.0.0.1", port: 0 });
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await Promise.all(silent.map((s) => new Promise((r) => s.close(r))));
    await app?.close();
    removeInputs();
  });

  it("cli_filter: sets --mem, --cpus-per-task and --time from the advice and tells the user in one line", async () => {
    resources = [rec("memory", 5 * GiB), rec("cores", 2), rec("walltime", 4500)];
    const run = await runPlugin("cli_filter", sbatchOptions(), {
      JOBSIGHT_URL: url,
      USER: "alice",
      JOBSIGHT_TOKEN: "tok_abc.123",
    });
    expect(run.rc).toBe("0");
    expect(run.sets).toEqual({ mem: "5120", "cpus-per-task": "2", time: "75" });
    expect(run.info).toEqual([
      "jobsight: --cpus-per-task 8->2, --mem 16G->5G, --time 04:00:00->01:15:00, from 37 similar past jobs (model m-9, policy default)",
    ]);
    expect(run.other).toEqual([]);
    expect(specs.at(-1)).toEqual({
      cluster: "hpc1",
      scheduler: "slurm",
      user: "alice",
      partition: "batch",
      jobName: "train",
      executable: "/home/alice/train.sh",
      requested: { cores: 8, memoryBytes: 16 * GiB, walltimeSeconds: 14400 },
    });
    expect(authorizations.at(-1)).toBe("Bearer tok_abc.123");
  });

  it("job_submit: writes the job descriptor fields and logs one line to the user", async () => {
    resources = [rec("memory", 3 * GiB), rec("cores", 4), rec("gpus", 1), rec("walltime", 1800)];
    const run = await runPlugin(
      "job_submit",
      {
        job_desc: {
          user_name: "bob",
          script: "#!/bin/bash\nsrun ./simulate\n",
          name: "sim",
          partition: "gpu",
          min_mem_per_node: 8192,
          cpus_per_task: 8,
          num_tasks: 2,
          min_nodes: 1,
          time_limit: 120,
          tres_per_node: "gres/gpu:2",
          tres_per_job: "",
        },
        submit_uid: 1001,
      },
      { JOBSIGHT_URL: url },
    );
    expect(run.rc).toBe("0");
    // 4 cores over 2 tasks; the policy never lowers GPUs; walltime at most 90% lower.
    expect(run.sets).toEqual({
      min_mem_per_node: "3072",
      cpus_per_task: "2",
      min_cpus: "4",
      time_limit: "30",
    });
    expect(run.user).toEqual([
      "jobsight: --cpus-per-task 8->2, --mem 8G->3G, --time 02:00:00->00:30:00, from 37 similar past jobs (model m-9, policy default)",
    ]);
    expect(specs.at(-1)).toMatchObject({
      user: "bob",
      jobName: "sim",
      partition: "gpu",
      requested: { cores: 16, memoryBytes: 8 * GiB, gpus: 2, walltimeSeconds: 7200 },
    });
  });

  it("job_submit: reads NO_VAL sentinels as unset and keeps GPUs the policy never lowers", async () => {
    resources = [rec("gpus", 1)];
    const noVal = {
      cpus_per_task: 65534,
      num_tasks: 4294967294,
      time_limit: 4294967294,
      min_nodes: 4294967294,
    };
    const job = {
      user_name: "bob",
      script: "#!/bin/bash\n",
      tres_per_node: "gres/gpu:a100:2,gres/nvme:1",
      ...noVal,
    };
    const kept = await runPlugin("job_submit", { job_desc: job }, { JOBSIGHT_URL: url });
    expect(kept).toMatchObject({ rc: "0", sets: {}, user: [] });
    expect(specs.at(-1)?.requested).toEqual({ cores: 1, gpus: 2 });
    // Another policy, without neverLower: the GPU count goes back through the gres field.
    const lowered = await runPlugin("job_submit", { job_desc: job }, { JOBSIGHT_URL: `${url}/lenient` });
    expect(lowered.sets).toEqual({ gres: "gpu:a100:1,nvme:1" });
    expect(lowered.user[0]).toContain("--gres gpu:a100:2,nvme:1->gpu:a100:1,nvme:1");
  });

  it("job_submit: leaves interactive jobs alone without asking", async () => {
    const before = specs.length;
    const run = await runPlugin(
      "job_submit",
      { job_desc: { user_name: "bob", min_mem_per_node: 4096, time_limit: 60 } },
      { JOBSIGHT_URL: url },
    );
    expect(run).toMatchObject({ rc: "0", sets: {}, user: [] });
    expect(specs.length).toBe(before);
  });

  it("submits unchanged, silently, when nothing changes, for job steps, or when the user disables it", async () => {
    resources = [rec("memory", 16 * GiB)];
    const same = await runPlugin("cli_filter", sbatchOptions({ time: "60", "cpus-per-task": "1" }), {
      JOBSIGHT_URL: url,
      USER: "alice",
    });
    expect(same).toMatchObject({ rc: "0", sets: {}, info: [] });
    const before = specs.length;
    const disabled = await runPlugin("cli_filter", sbatchOptions(), {
      JOBSIGHT_URL: url,
      USER: "alice",
      JOBSIGHT_DISABLE: "1",
    });
    expect(disabled).toMatchObject({ rc: "0", sets: {}, info: [] });
    const step = await runPlugin("cli_filter", sbatchOptions({ type: "srun" }), {
      JOBSIGHT_URL: url,
      USER: "alice",
    });
    expect(step).toMatchObject({ rc: "0", sets: {} });
    expect(specs.length).toBe(before);
  });

  it("fails open when the server is down", async () => {
    const closed = fastify();
    const deadUrl = await closed.listen({ host: "127.0.0.1", port: 0 });
    await closed.close();
    resources = [rec("memory", 2 * GiB)];
    const run = await runPlugin("cli_filter", sbatchOptions(), { JOBSIGHT_URL: deadUrl, USER: "alice" });
    expect(run).toMatchObject({
      rc: "0",
      sets: {},
      info: [],
      other: ["verbose\tjobsight: no answer from the server; job submitted unchanged"],
    });
    expect(run.elapsedMs).toBeLessThan(3000);
    const submit = await runPlugin(
      "job_submit",
      { job_desc: { user_name: "bob", script: "#!/bin/bash\n", min_mem_per_node: 8192 } },
      { JOBSIGHT_URL: deadUrl },
    );
    expect(submit).toMatchObject({
      rc: "0",
      sets: {},
      user: [],
      info: ["jobsight: no answer from the server; job submitted unchanged"],
    });
  });

  it("fails open within curl's --max-time when the server never answers", async () => {
    const server = createServer((socket) => {
      sockets.push(socket); // accept, read, never answer
      socket.on("data", () => {});
    });
    silent.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const run = await runPlugin("cli_filter", sbatchOptions(), {
      JOBSIGHT_URL: `http://127.0.0.1:${port}`,
      USER: "alice",
      JOBSIGHT_TIMEOUT: "1",
    });
    expect(run).toMatchObject({
      rc: "0",
      sets: {},
      info: [],
      other: ["verbose\tjobsight: no answer from the server; job submitted unchanged"],
    });
    expect(run.elapsedMs).toBeGreaterThanOrEqual(900);
    expect(run.elapsedMs).toBeLessThan(4000);
  });

  it("fails open on a garbage answer, on values it does not trust, and on options it may not set", async () => {
    for (const prefix of ["/garbage", "/bad-values", "/unknown-key"]) {
      const run = await runPlugin("cli_filter", sbatchOptions(), {
        JOBSIGHT_URL: `${url}${prefix}`,
        USER: "alice",
      });
      expect(run, prefix).toMatchObject({
        rc: "0",
        sets: {},
        info: [],
        other: ["verbose\tjobsight: unreadable answer; job submitted unchanged"],
      });
    }
    const submit = await runPlugin(
      "job_submit",
      { job_desc: { user_name: "bob", script: "#!/bin/bash\n", min_mem_per_node: 8192 } },
      { JOBSIGHT_URL: `${url}/garbage` },
    );
    expect(submit).toMatchObject({
      rc: "0",
      sets: {},
      user: [],
      info: ["jobsight: unreadable answer; job submitted unchanged"],
    });
  });

  it("fails open when the server answers an error", async () => {
    const run = await runPlugin("cli_filter", sbatchOptions(), {
      JOBSIGHT_URL: `${url}/failing`,
      USER: "alice",
    });
    expect(run).toMatchObject({
      rc: "0",
      sets: {},
      info: [],
      other: ["verbose\tjobsight: server error predictor_error; job submitted unchanged"],
    });
  });

  it("holds a repeat offender's submission (cli_filter --hold, job_submit priority 0) and tells why", async () => {
    const run = await runPlugin("cli_filter", sbatchOptions({ "job-name": "assemble" }), {
      JOBSIGHT_URL: `${url}/holding`,
      USER: "carol",
    });
    expect(run).toMatchObject({
      rc: "0",
      sets: { hold: "set" },
      info: ["jobsight: held: 3 of your assemble jobs were killed for memory"],
    });
    const submit = await runPlugin(
      "job_submit",
      { job_desc: { user_name: "carol", script: "#!/bin/bash\n", name: "assemble", min_mem_per_node: 8192 } },
      { JOBSIGHT_URL: `${url}/holding` },
    );
    expect(submit).toMatchObject({
      rc: "0",
      sets: { priority: "0" },
      user: ["jobsight: held: 3 of your assemble jobs were killed for memory"],
    });
    const other = await runPlugin("cli_filter", sbatchOptions(), {
      JOBSIGHT_URL: `${url}/holding`,
      USER: "alice",
    });
    expect(other.sets).toEqual({});
  });

  it("fails open when curl is not there", async () => {
    const run = await runPlugin("cli_filter", sbatchOptions(), {
      JOBSIGHT_URL: url,
      USER: "alice",
      JOBSIGHT_CURL: "/nonexistent/curl",
    });
    expect(run).toMatchObject({
      rc: "0",
      sets: {},
      info: [],
      other: ["verbose\tjobsight: curl not found; job submitted unchanged"],
    });
  });
});
