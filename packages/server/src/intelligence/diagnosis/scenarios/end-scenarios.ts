import { GIB } from "./build-samples.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

/** The node dies: samples stop, slurmctld marks the job NODE_FAIL once the node stops answering. */
function nodeFailure(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9001",
    node: "cn088",
    user: "pat",
    jobName: "cfd-mesh-3",
    executable: "simpleFoam",
    start: "2026-11-15T13:00:00Z",
    runSeconds: 5395,
    samplesUntilSeconds: 4890,
    cores: 16,
    coresUsed: 14,
    memoryBytes: 64 * GIB,
    memoryUsed: 40 * GIB,
    walltimeSeconds: 6 * 3600,
    outcome: { state: "NODE_FAIL", exitCode: 0 },
    final: false,
  });
  return {
    name: "node-failure",
    description:
      "The node stops answering 81 minutes in; slurmctld records NODE_FAIL about eight minutes later.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["node_failure"],
      unseen: ["usage-samples", "final-reading"],
      causeDetermined: true,
      claims: { node_failure: ["not by its own code", "The last reading from cn088 came at"] },
    },
  };
}

/** A scavenger-QOS job preempted by higher-priority work after three hours. */
function preempted(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9102",
    node: "cn090",
    user: "quinn",
    jobName: "sweep-lr-0.003",
    executable: "train.py",
    partition: "scavenger",
    qos: "preemptible",
    start: "2026-11-15T02:00:00Z",
    runSeconds: 11_520,
    cores: 8,
    coresUsed: 7,
    memoryBytes: 32 * GIB,
    memoryUsed: 14 * GIB,
    walltimeSeconds: 12 * 3600,
    outcome: { state: "PREEMPTED", exitCode: 0 },
  });
  return {
    name: "preempted",
    description: "A job in the scavenger partition is preempted after 3 h 12 min.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["preempted"],
      unseen: [],
      causeDetermined: true,
      claims: {
        preempted: ["partition scavenger", "QOS preemptible", "3 h 12 min", "did not fail on its own"],
      },
    },
  };
}

/** The user cancels a running job after 25 minutes. */
function cancelled(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9150",
    node: "cn091",
    user: "rosa",
    jobName: "render-frames",
    executable: "blender",
    start: "2026-11-15T16:00:00Z",
    runSeconds: 1500,
    cores: 16,
    coresUsed: 15,
    memoryBytes: 32 * GIB,
    memoryUsed: 18 * GIB,
    walltimeSeconds: 6 * 3600,
    outcome: { state: "CANCELLED", exitCode: 0, reason: "CANCELLED by 1000" },
    steps: [{ stepId: "batch", state: "CANCELLED", signal: 15, elapsedSeconds: 1500 }],
  });
  return {
    name: "cancelled",
    description: "The job is cancelled by its owner (uid 1000) after 25 minutes.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["cancelled"],
      unseen: [],
      causeDetermined: true,
      claims: { cancelled: ["after running 25 min", "CANCELLED by 1000", "did not fail on its own"] },
    },
  };
}

/** A script exits 1 on a missing input file; nothing Jobsight sees explains it. */
function exitOne(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "9200",
    node: "cn092",
    user: "sam",
    jobName: "prep-shards",
    executable: "prep.py",
    start: "2026-11-16T09:00:00Z",
    runSeconds: 372,
    cores: 4,
    coresUsed: 3.2,
    memoryBytes: 8 * GIB,
    memoryUsed: 2.4 * GIB,
    walltimeSeconds: 3600,
    outcome: { state: "FAILED", exitCode: 1 },
    steps: [{ stepId: "batch", state: "FAILED", exitCode: 1, elapsedSeconds: 372 }],
  });
  return {
    name: "exit-1",
    description: "The job's Python script raises FileNotFoundError and exits 1.",
    input: {
      record,
      samples,
      events: [],
      logLines: [
        { source: "slurm-output", line: "processing shard 41/128" },
        { source: "slurm-output", line: "Traceback (most recent call last):" },
        { source: "slurm-output", line: '  File "/home/sam/proj/prep.py", line 88, in <module>' },
        {
          source: "slurm-output",
          line: "FileNotFoundError: [Errno 2] No such file or directory: '/scratch/sam/input/shard-0042.parquet'",
        },
      ],
      submission:
        "#!/bin/bash\n#SBATCH --time=01:00:00\n#SBATCH --mem=8G\n#SBATCH -c 4\npython prep.py --in /scratch/sam/input\n",
      sourcesSeen: {},
    },
    expect: {
      findings: ["job_error"],
      unseen: [],
      causeDetermined: true,
      // The uploaded log's traceback names the exception, so the claim does.
      claims: { job_error: ["ended with exit code 1", "uncaught exception", "FileNotFoundError: [Errno 2]"] },
    },
  };
}

/** The scenarios of jobs ended from outside, and of a job's own failure. */
export const endScenarios: readonly DiagnosisScenario[] = [
  nodeFailure(),
  preempted(),
  cancelled(),
  exitOne(),
];
