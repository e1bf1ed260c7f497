import type { JobRecord } from "@jobsight/schemas";
import { buildSeries, GIB, MIB, wobble } from "./build-samples.js";
import { oomKillEvent } from "./kernel-events.js";
import type { DiagnosisScenario } from "./scenario.js";

/** A Kubernetes pod that fills /dev/shm (an in-memory emptyDir) until its container is OOMKilled. */
export function devShmScenario(): DiagnosisScenario {
  const cluster = "k8s-prod";
  const jobId = "ml-team/featurize-28841-x8k2p";
  const node = "ip-10-0-3-17";
  const start = "2026-11-04T13:20:00Z";
  const samples = buildSeries({
    cluster,
    jobId,
    node,
    start,
    intervalSeconds: 15,
    count: 100,
    memoryLimitBytes: 16 * GIB,
    cpuLimitCores: 4,
    shape: (i) => {
      const anon = 3.1 * GIB + wobble(i) * 40 * MIB;
      const shmem = 0.4 * GIB + 11.7 * GIB * (i / 99);
      const file = shmem + 0.35 * GIB;
      return {
        memory: { current: anon + file + 0.12 * GIB, anon, file, shmem },
        cores: 2.8 + wobble(i, 4) * 0.2,
        throttledShare: 0.02,
        pids: 9,
        pressure: { cpuSome: 6, memorySome: 1, ioSome: 0.5 },
        processes: [
          { pid: 30117, command: "python3", rssBytes: Math.round(3 * GIB + shmem), state: "R" },
          { pid: 30160, command: "python3", rssBytes: Math.round(1.1 * GIB), state: "S" },
        ],
      };
    },
    final: {
      at: "2026-11-04T13:45:08Z",
      shape: { memory: { current: 0, anon: 0, file: 0, shmem: 0, peak: 16 * GIB, oomKills: 1 } },
    },
  });
  const record: JobRecord = {
    cluster,
    jobId,
    phase: "ended",
    source: "kubernetes",
    spec: {
      cluster,
      scheduler: "kubernetes",
      user: "system:serviceaccount:ml-team:pipeline",
      account: "ml-team",
      jobName: "featurize-28841",
      executable: "registry.internal/ml/featurize:2.3.1",
      requested: { memoryBytes: 16 * GIB, cores: 4 },
    },
    submittedAt: "2026-11-04T13:19:41Z",
    startedAt: start,
    endedAt: "2026-11-04T13:45:04Z",
    outcome: { state: "FAILED", exitCode: 137, reason: "OOMKilled" },
    nodes: [node],
    allocated: { memoryBytes: 16 * GIB, cores: 4 },
  };
  return {
    name: "oom-dev-shm",
    description:
      "A pod writes features to /dev/shm (an in-memory emptyDir) until its 16 GiB container limit kills it.",
    input: {
      record,
      samples,
      events: [
        oomKillEvent({
          cluster,
          node,
          time: "2026-11-04T13:45:03Z",
          pid: 30117,
          name: "python3",
          totalVmKb: 19_874_112,
          anonRssKb: 3_250_585,
          fileRssKb: 20_480,
          shmemRssKb: 12_582_912,
          uid: 1000,
          pgtablesKb: 31_000,
          memcg:
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5b1f0e2a_8c1d_4b7e_9a3f_2d6c8e4f1a90.slice/cri-containerd-4f1c9a7e2b3d5f6a8c0e1d2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0b1a2f3e.scope",
          taskMemcg:
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod5b1f0e2a_8c1d_4b7e_9a3f_2d6c8e4f1a90.slice/cri-containerd-4f1c9a7e2b3d5f6a8c0e1d2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0b1a2f3e.scope",
        }),
      ],
      sourcesSeen: {},
    },
    expect: {
      findings: ["oom_kill"],
      unseen: [],
      causeDetermined: true,
      claims: {
        oom_kill: ["the container's limit", "shared memory / tmpfs such as /dev/shm", "python3 (pid 30117"],
      },
      neverClaims: ["fell between two samples"],
    },
  };
}
