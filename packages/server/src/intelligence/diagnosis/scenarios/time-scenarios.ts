import { GIB } from "./build-samples.js";
import type { DiagnosisScenario } from "./scenario.js";
import { steadyJob } from "./steady-job.js";

const TIMEOUT_STEPS = [
  // As SLURM reports a timeout: the batch step is cancelled with SIGTERM, the job is TIMEOUT 0:0.
  { stepId: "batch", state: "CANCELLED" as const, signal: 15, elapsedSeconds: 7245 },
  { stepId: "extern", state: "COMPLETED" as const, exitCode: 0, elapsedSeconds: 7245 },
];

/** A molecular-dynamics run whose 2 h limit is shorter than most past runs of the same script. */
function timeoutWithHistory(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8120",
    node: "cn022",
    user: "carol",
    jobName: "md-equilibrate",
    executable: "run_md.sh",
    start: "2026-11-11T06:00:00Z",
    runSeconds: 7245,
    cores: 8,
    coresUsed: 7.3,
    memoryBytes: 16 * GIB,
    memoryUsed: 6.2 * GIB,
    walltimeSeconds: 7200,
    outcome: { state: "TIMEOUT", exitCode: 0 },
    steps: TIMEOUT_STEPS,
  });
  return {
    name: "timeout-with-history",
    description:
      "The job hits its 2 h limit while busy; 8 of the script's last 10 runs took longer than 2 h.",
    input: {
      record,
      samples,
      events: [],
      history: {
        group: "user=carol,executable=run_md.sh",
        runTimesSeconds: [7420, 7630, 7890, 6980, 8120, 7710, 7300, 8430, 7560, 6890],
      },
      submission:
        "#!/bin/bash\n#SBATCH --time=02:00:00\n#SBATCH --cpus-per-task=8\n#SBATCH --mem=16G\n./run_md.sh equil.mdp\n",
      sourcesSeen: {},
    },
    expect: {
      findings: ["timeout"],
      unseen: [],
      causeDetermined: true,
      claims: { timeout: ["The limit is short", "8 of them (80%) took longer"] },
      neverClaims: ["looks hung"],
    },
  };
}

/** A job that usually takes half an hour hangs after 35 minutes and sits idle until its 4 h limit. */
function timeoutHung(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8133",
    node: "cn023",
    user: "dan",
    jobName: "etl-nightly",
    executable: "etl.py",
    start: "2026-11-12T01:00:00Z",
    runSeconds: 14_440,
    intervalSeconds: 60,
    cores: 8,
    coresUsed: 7,
    memoryBytes: 16 * GIB,
    memoryUsed: 7 * GIB,
    walltimeSeconds: 4 * 3600,
    outcome: { state: "TIMEOUT", exitCode: 0 },
    steps: [
      { ...TIMEOUT_STEPS[0], elapsedSeconds: 14_440 },
      { ...TIMEOUT_STEPS[1], elapsedSeconds: 14_440 },
    ],
    shape: (_i, elapsed, base) =>
      elapsed > 2100
        ? { ...base, cores: 0.002, processes: base.processes?.map((p) => ({ ...p, state: "S" })) }
        : base,
  });
  return {
    name: "timeout-hung",
    description:
      "Past runs take 25-40 min; this one stops using CPU after 35 min and waits until the 4 h limit.",
    input: {
      record,
      samples,
      events: [],
      history: {
        group: "user=dan,executable=etl.py",
        runTimesSeconds: [1620, 1810, 1540, 2200, 1930, 1700, 2390, 1880, 1660, 2010, 1750, 1590],
      },
      sourcesSeen: {},
    },
    expect: {
      findings: ["timeout", "cpu_low_efficiency"],
      unseen: [],
      causeDetermined: true,
      claims: { timeout: ["unusually long", "looks hung"] },
    },
  };
}

/** A 42-minute job that asked for a day. */
function walltimeOverrequested(): DiagnosisScenario {
  const { record, samples } = steadyJob({
    jobId: "8200",
    node: "cn030",
    user: "liz",
    jobName: "align-sample-17",
    executable: "bwa",
    start: "2026-11-12T10:00:00Z",
    runSeconds: 2520,
    cores: 4,
    coresUsed: 3.6,
    memoryBytes: 8 * GIB,
    memoryUsed: 3.1 * GIB,
    walltimeSeconds: 24 * 3600,
  });
  return {
    name: "walltime-overrequested",
    description: "A job requests 24 h and completes in 42 min.",
    input: { record, samples, events: [], sourcesSeen: {} },
    expect: {
      findings: ["walltime_overrequested"],
      unseen: [],
      causeDetermined: true,
      claims: { walltime_overrequested: ["24 h", "42 min"] },
    },
  };
}

/** The time scenarios. */
export const timeScenarios: readonly DiagnosisScenario[] = [
  timeoutWithHistory(),
  timeoutHung(),
  walltimeOverrequested(),
];
