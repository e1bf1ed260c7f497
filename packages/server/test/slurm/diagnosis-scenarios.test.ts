// One real SLURM job per class of issue #23 (timeouts, three kinds of OOM, idle and oversubscribed
// cores, over-asking, the job's own crash, healthy, cancelled, idle GPUs, a stalled data loader, an
// application Xid, a hardware Xid with the GPU lost), watched by the real collector and diagnosed by
// the server; what the node here cannot produce (GPUs, Xids, a memory cgroup) is generated in the
// real formats around the real job. Each diagnosis is scored against its class: every expected
// finding present, no finding the evidence does not support, `unseen` exactly what was not observed;
// and each is timed from the job's end to the first GET that served it.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Diagnosis, type JobRecord, type UsageSample, validateDiagnosis } from "@jobsight/schemas";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeSlurm, sbatch, slurmClient, slurmCluster } from "../../../../test/slurm/index.js";
import { poll } from "../../../../test/slurm/poll.js";
import { loadDiagnosisInput } from "../../src/intelligence/diagnosis/diagnosis-input.js";
import { checkEvidence } from "../../src/intelligence/diagnosis/evidence-check.js";
import { type InProcessServer, startInProcessServer } from "./in-process-server.js";
import { RestError, restApi } from "./rest-api.js";
import { readBatchStarts } from "./scenarios/batch-starts.js";
import { CgroupMirror } from "./scenarios/cgroup-mirror.js";
import { DiagnosisWatch } from "./scenarios/diagnosis-latency.js";
import { FAKE_GPUS, FakeNvidiaSmi } from "./scenarios/fake-gpus.js";
import { FakeKernelLog } from "./scenarios/fake-kernel-log.js";
import { JobEnds } from "./scenarios/job-ends.js";
import { SCENARIO_CLASSES, type ScenarioClass, type ScenarioPhase } from "./scenarios/scenario-classes.js";
import {
  type ScenarioCollector,
  type ScenarioCollectorTarget,
  startScenarioCollector,
} from "./scenarios/scenario-collectors.js";
import { driveJob, type ScenarioJob } from "./scenarios/scenario-drivers.js";
import {
  type ClassScore,
  explainScore,
  PROMPT_INTERVALS,
  type SampledRun,
  scoreDiagnosis,
  scoreTable,
} from "./scenarios/scenario-score.js";

const CLUSTER = "scenarios-slurm";
const PLATFORM = "platform-scenarios-token-0001";
const COLLECTOR = "collector-scenarios-token-01";
const LATENCY_BOUND_MS = 10_000;
// Every 2 s (sites sample every 10 s). SLURM's Start is the allocation: slurmd launches a dozen
// batch scripts one at a time, the last tens of seconds later on a loaded node (batch-starts.ts).
const NODE_INTERVAL_S = 2;
const GENERATED_NOTE = [
  "generated: this node has no GPU, SLURM here has no GRES and no cgroups; around each real job the",
  "node's nvidia-smi (--query-gpu CSV), kernel log (/dev/kmsg records) or job cgroup (v2 files that",
  "follow the job's real /proc figures) are generated in their real formats, the test plays the memory",
  "cgroup's OOM kill (kmsg lines, memory.events, SIGKILL) and the GPU driver (Xid 31; Xid 79 with",
  "nvidia-smi's 'GPU is lost'), and each GPU job gets the SLURM_JOB_GPUS/CUDA_VISIBLE_DEVICES GRES would set.",
].join("\n");

describeSlurm("diagnosis scenarios: one real SLURM job per class, scored", () => {
  let server: InProcessServer;
  let controller: ScenarioCollector | undefined;
  let node: ScenarioCollector | undefined;
  let dir: string;
  let ends: JobEnds;
  let watch: DiagnosisWatch;
  const jobs: ScenarioJob[] = [];
  const diagnoses = new Map<string, Diagnosis>();
  let scores: ClassScore[] = [];

  const call = restApi(() => server.url, PLATFORM);
  // A 404 is an answer here (a diagnosis not there yet), not a failure.
  const api = <T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T | undefined> =>
    call<T>(method, path, body).catch((error) => {
      if (error instanceof RestError && error.status === 404) return undefined;
      throw error;
    });

  const get = <T>(path: string) => api<T>("GET", path);
  const query = `cluster=${CLUSTER}`;

  /** Resolves once the running node collector has done `n` more rounds. */
  async function rounds(n: number): Promise<void> {
    const c = node!;
    const until = c.rounds() + n;
    while (c.rounds() < until) await new Promise((r) => setTimeout(r, 100));
  }

  async function submit(cls: ScenarioClass): Promise<ScenarioJob> {
    const gpu = cls.gpu ? FAKE_GPUS[cls.gpu.index] : undefined;
    // What SLURM's GRES plugin would export for the GPU it allocated (this cluster has no GRES).
    const env = [
      `SCENARIO_DIR=${dir}`,
      ...(gpu ? [`SLURM_JOB_GPUS=${gpu.index}`, `CUDA_VISIBLE_DEVICES=${gpu.uuid}`] : []),
    ];
    const id = await sbatch(cls.script, [
      `--job-name=scn-${cls.name}`,
      "--ntasks=1",
      `--cpus-per-task=${cls.request.cpus}`,
      `--mem=${cls.request.memMb}M`,
      `--time=${cls.request.timeMinutes}`,
      // Else sbatch's default slurm-<id>.out in the jobs folder.
      ...(cls.output ? [`--output=${cls.output}`] : []),
      `--export=ALL,${env.join(",")}`,
    ]);
    ends.track(id);
    watch.watch(id);
    return { id, cls };
  }

  /**
   * Runs the classes of one phase under their own node collector: `cgroup` reads a generated cgroup
   * v2 tree that follows the jobs' real processes; `proc` reads the real /proc, with nvidia-smi and
   * the kernel log generated. The two never run at once: both would report the same jobs.
   */
  async function runPhase(phase: ScenarioPhase, target: ScenarioCollectorTarget, smi: FakeNvidiaSmi) {
    const kmsg = await FakeKernelLog.create(join(dir, `kmsg-${phase}`));
    const mirror =
      phase === "cgroup" ? new CgroupMirror(await mkdtemp(join(tmpdir(), "jobsight-scn-cg-"))) : undefined;
    const flags =
      phase === "cgroup"
        ? ["--cgroup-version", "v2", "--cgroup-root", mirror!.root, "--gpu", "off"]
        : ["--cgroup-version", "none", "--gpu", "on", "--nvidia-smi", smi.command];
    node = await startScenarioCollector(
      target,
      "node",
      [...flags, "--kmsg-path", kmsg.path],
      NODE_INTERVAL_S,
    );
    try {
      await rounds(1);
      const phaseJobs = await Promise.all(SCENARIO_CLASSES.filter((c) => c.phase === phase).map(submit));
      jobs.push(...phaseJobs);
      const ended = (id: string) => ends.ended(id).then(() => {});
      // nvidia-smi fails for the whole node once a GPU is lost: the other GPU jobs end first.
      const gpusDone = Promise.all(
        phaseJobs.filter((j) => j.cls.gpu && j.cls.fault !== "xid-gpu-lost").map((j) => ended(j.id)),
      ).then(() => {});
      const standIns = { dir, smi, kmsg, mirror, ended, rounds };
      await Promise.all(phaseJobs.map((j) => driveJob(standIns, j, gpusDone)));
      await Promise.all(phaseJobs.map((j) => ended(j.id)));
      // A job's processes can outlive SLURM's End (the kill is signalled, not waited for): its
      // final reading comes in the first round that no longer sees it. Stopping ships what is spooled.
      await rounds(2);
      await poll(async () => (node!.jobsSeen() === 0 ? true : undefined), {
        what: "a round of the node collector that sees no job running",
        timeoutMs: 60_000,
        intervalMs: 100,
      });
    } finally {
      await node.stop();
      node = undefined;
      mirror?.cleanup();
    }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "jobsight-scenarios-"));
    server = await startInProcessServer({
      prefix: "diag_scenarios",
      cluster: CLUSTER,
      platformToken: PLATFORM,
      collectorToken: COLLECTOR,
    });
    await api("POST", "/v1/clusters", { id: CLUSTER, name: "Diagnosis scenarios", scheduler: "slurm" });
    const target: ScenarioCollectorTarget = {
      slurm: slurmCluster(),
      cluster: CLUSTER,
      restUrl: server.url,
      otlpUrl: server.otlpGrpcUrl,
      token: COLLECTOR,
    };
    ends = new JobEnds(slurmClient());
    watch = new DiagnosisWatch(get, query);
    controller = await startScenarioCollector(target, "slurm-controller");
    const smi = await FakeNvidiaSmi.create(join(dir, "nvidia-smi"));
    // The stalled loader's input, read around the page cache.
    await writeFile(join(dir, "dataset.bin"), randomBytes(64 * 2 ** 20));
    await runPhase("cgroup", target, smi);
    await runPhase("proc", target, smi);
    ends.stop();
    await watch.settled();
    await controller.stop();
    controller = undefined;

    const began = await readBatchStarts(slurmCluster().root);
    const at = (iso: string | undefined) => (iso ? Date.parse(iso) : undefined);
    for (const job of jobs) {
      const record = (await get<JobRecord>(`/v1/jobs/${job.id}?${query}`))!;
      const d = (await get<Diagnosis>(`/v1/jobs/${job.id}/diagnosis?${query}`))!;
      diagnoses.set(job.id, d);
      // Every cited piece of evidence must point at what storage holds for the job.
      const input = await loadDiagnosisInput(server.app.storage, server.app.objectStore, record);
      const problems = checkEvidence(d, input).map((p) => p.message);
      const usage = await get<{ samples: UsageSample[] }>(`/v1/jobs/${job.id}/usage?${query}`);
      const samples = usage?.samples ?? [];
      const observed: SampledRun = {
        sampleTimes: samples.map((x) => Date.parse(x.time)),
        intervalSeconds: NODE_INTERVAL_S,
        startedAt: at(record.startedAt),
        endedAt: at(record.endedAt),
        launchedAt: began.get(job.id),
      };
      scores.push(scoreDiagnosis(job.cls, job.id, d, problems, watch.latency(job.id, d).ms, observed));
    }
    scores = SCENARIO_CLASSES.map((c) => scores.find((s) => s.name === c.name)!);
    const title = `diagnosis scenarios on SLURM ${slurmCluster().version} (${slurmCluster().node.name})`;
    console.log(`${scoreTable(scores, title)}\n\n${GENERATED_NOTE}`);
    // A class that is not exact says why (every class with JOBSIGHT_SCENARIOS_EXPLAIN=1): its
    // findings, what it could not see, and its samples.
    const explainAll = process.env.JOBSIGHT_SCENARIOS_EXPLAIN === "1";
    for (const s of scores.filter((x) => !x.exact || explainAll)) {
      const usage = await get<{ samples: UsageSample[] }>(`/v1/jobs/${s.jobId}/usage?${query}`);
      console.log(explainScore(s, diagnoses.get(s.jobId)!, usage?.samples ?? []));
    }
  }, 480_000);

  afterAll(async () => {
    ends?.stop();
    watch?.stop();
    await node?.stop().catch(() => {});
    await controller?.stop().catch(() => {});
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("runs one real job per class", () => {
    expect(scores.map((s) => s.name)).toEqual(SCENARIO_CLASSES.map((c) => c.name));
    for (const d of diagnoses.values()) expect(validateDiagnosis(d)).toMatchObject({ ok: true });
  });

  it("scores every class exact: expected findings present, nothing unsupported, unseen exactly what was not observed", () => {
    expect(scores.filter((s) => !s.exact)).toEqual([]);
  });

  it(`samples each job within ${PROMPT_INTERVALS} intervals of its batch script's start (SLURM's log)`, () => {
    // The launch is the evidence for SLURM's part of any late start: every job must have one.
    expect(scores.filter((s) => s.launchWaitSeconds === undefined).map((s) => s.name)).toEqual([]);
    const late = scores.filter((s) => !s.prompt);
    const bound = PROMPT_INTERVALS * NODE_INTERVAL_S;
    expect(late.map((s) => [s.name, s.firstSampleSeconds, `bound ${bound} s`])).toEqual([]);
  });

  it("serves each job's final diagnosis within 10 s of the job's end", () => {
    const slow = scores.filter((s) => s.latencyMs === undefined || s.latencyMs >= LATENCY_BOUND_MS);
    expect(slow.map((s) => [s.name, s.latencyMs])).toEqual([]);
  });
});
