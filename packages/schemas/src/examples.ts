import type { Static, TSchema } from "@sinclair/typebox";
import type { wireSchemas } from "./api/generated-files.js";

type Examples = { [K in keyof typeof wireSchemas]?: Static<TSchema> };

const spec = {
  cluster: "hpc1",
  scheduler: "slurm",
  user: "alice",
  account: "physics",
  partition: "gpu",
  jobName: "train-resnet",
  executable: "python train.py",
  scriptHash: "a".repeat(64),
  array: { arrayJobId: "4200", taskId: 3, taskCount: 10 },
  requested: {
    memoryBytes: 64 * 2 ** 30,
    cores: 8,
    gpus: 2,
    gpuModel: "a100",
    walltimeSeconds: 14_400,
    nodes: 1,
  },
  submitTime: "2026-12-01T10:00:00Z",
};

const record = {
  cluster: "hpc1",
  jobId: "4242",
  phase: "ended",
  source: "slurm-controller",
  spec,
  submittedAt: "2026-12-01T10:00:00Z",
  startedAt: "2026-12-01T10:01:00Z",
  endedAt: "2026-12-01T11:00:00Z",
  outcome: { state: "OUT_OF_MEMORY", signal: 9, reason: "OutOfMemory" },
  nodes: ["gpu07"],
  peaks: { memoryBytes: 64 * 2 ** 30, coresUsed: 6.5, gpusUsed: 2, runTimeSeconds: 3540 },
  steps: [{ stepId: "batch", state: "OUT_OF_MEMORY", signal: 9, maxRssBytes: 60 * 2 ** 30 }],
};

const sample = {
  cluster: "hpc1",
  jobId: "4242",
  node: "gpu07",
  step: "batch",
  time: "2026-12-01T10:30:00.123Z",
  memory: {
    currentBytes: 2 ** 30,
    peakBytes: 2 ** 31,
    limitBytes: 2 ** 36,
    anonBytes: 2 ** 29,
    fileBytes: 2 ** 28,
    shmemBytes: 0,
    oomEvents: 0,
    oomKillEvents: 0,
  },
  cpu: { usageSeconds: 1234.5, throttledPeriods: 3, periods: 100, throttledSeconds: 0.2 },
  io: { readBytes: 10, writeBytes: 20 },
  pids: 12,
  pressure: { ioSome: 12.5, memorySome: 0 },
  gpus: [
    {
      index: 0,
      uuid: "GPU-1",
      pciBusId: "00000000:3B:00.0",
      utilizationPercent: 97,
      memoryUsedBytes: 2 ** 34,
    },
  ],
  processes: [{ pid: 1234, command: "python", rssBytes: 2 ** 30, state: "R" }],
};

const event = {
  cluster: "hpc1",
  node: "gpu07",
  time: "2026-12-01T10:45:00Z",
  kind: "gpu_xid",
  jobId: "4242",
  xid: { code: 79, pciBusId: "0000:3b:00" },
  message: "NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.",
};

const prediction = {
  id: "p_01",
  createdAt: "2026-12-01T10:00:00Z",
  mode: "live",
  modelVersion: "m-2026-12-01",
  cluster: "hpc1",
  user: "alice",
  resources: [
    {
      resource: "memory",
      status: "ok",
      unit: "bytes",
      requested: 64 * 2 ** 30,
      value: 24 * 2 ** 30,
      low: 16 * 2 ** 30,
      high: 28 * 2 ** 30,
      nominalLevel: 0.9,
      confidence: 0.97,
      evidence: { group: "user=alice,executable=python train.py", jobs: 41, since: "2026-10-01T00:00:00Z" },
    },
    {
      resource: "gpus",
      status: "insufficient_evidence",
      reasonCode: "too_few_similar_jobs",
      reason: "2 similar jobs",
    },
  ],
};

/** One valid example of every wire contract (used by the tests and by the docs). */
export const validExamples: Examples = {
  JobSpec: spec,
  JobRecord: record,
  JobRecordBatch: { records: [record] },
  UsageSample: sample,
  UsageBatch: { idempotencyKey: "batch-00000001", samples: [sample] },
  NodeEvent: event,
  NodeEventBatch: { events: [event] },
  PredictionRequest: { spec, resources: ["memory", "walltime"] },
  PredictionBatchRequest: { requests: [{ spec }] },
  Prediction: prediction,
  PredictionBatch: { predictions: [prediction] },
  Policy: {
    name: "default",
    minConfidence: 0.9,
    neverLower: ["gpus"],
    maxDecrease: { memory: 0.5 },
    floors: { memory: 2 ** 30 },
  },
  SubmissionEdit: {
    format: "sbatch",
    text: "#SBATCH --mem=24G\n",
    diff: "",
    changes: [{ resource: "memory", before: "#SBATCH --mem=64G", after: "#SBATCH --mem=24G", line: 1 }],
  },
  Diagnosis: {
    cluster: "hpc1",
    jobId: "4242",
    generatedAt: "2026-12-02T10:00:00Z",
    state: "OUT_OF_MEMORY",
    causeDetermined: true,
    summary: "Killed for memory.",
    findings: [
      {
        kind: "oom_kill",
        severity: "error",
        claim: "The job was killed when its memory reached the 64 GiB limit.",
        confidence: 0.95,
        evidence: [
          { kind: "scheduler", source: "sacct", metric: "outcome.state", text: "state OUT_OF_MEMORY" },
        ],
      },
    ],
    unseen: [{ source: "gpu-metrics", reason: "no nvidia-smi on gpu07" }],
    agentPrompt: "A job was killed…",
  },
  ApiError: {
    code: "VALIDATION_FAILED",
    message: "1 field is invalid",
    statusCode: 400,
    errors: [{ path: "/spec/user", message: "Expected string" }],
  },
  Artifact: {
    sha256: "b".repeat(64),
    kind: "script",
    sizeBytes: 120,
    contentType: "text/x-shellscript",
    createdAt: "2026-12-01T10:00:00Z",
  },
  Cluster: { id: "hpc1", name: "HPC one", scheduler: "slurm" },
  IngestResult: { accepted: 10, duplicates: 2 },
  JobPage: { items: [record], nextCursor: null },
  UsageSeries: { cluster: "hpc1", jobId: "4242", samples: [sample] },
  WasteReport: {
    generatedAt: "2026-12-02T10:00:00Z",
    by: "user",
    rows: [
      {
        key: "alice",
        jobs: 3,
        memoryRequestedByteSeconds: 100,
        memoryUsedByteSeconds: 40,
        coreSecondsRequested: 80,
        coreSecondsUsed: 20,
        gpuSecondsRequested: 0,
        gpuSecondsUsed: 0,
        walltimeRequestedSeconds: 900,
        walltimeUsedSeconds: 300,
      },
    ],
  },
  PolicySimulationRequest: {
    policy: { name: "tighter", maxDecrease: { memory: 0.3 } },
    cluster: "hpc1",
    from: "2026-11-25T00:00:00Z",
  },
  PolicySimulation: {
    policy: "tighter",
    from: "2026-11-25T00:00:00Z",
    to: "2026-12-02T00:00:00Z",
    jobs: 40,
    resources: [
      {
        resource: "memory",
        jobs: 40,
        changed: 12,
        raised: 2,
        lowered: 9,
        filled: 1,
        held: { insufficient_evidence: 20 },
        limitedBy: { max_decrease: 4 },
        requestedTotal: 400 * 2 ** 30,
        appliedTotal: 310 * 2 ** 30,
      },
    ],
  },
  PolicyAuditPage: {
    items: [
      {
        id: "17",
        recordedAt: "2026-12-02T16:30:00Z",
        cluster: "hpc1",
        actor: "slurm-cli-filter",
        user: "alice",
        job: "train",
        resource: "memory",
        before: 16 * 2 ** 30,
        after: 8 * 2 ** 30,
        modelVersion: "m-3",
        policy: "default",
        limitedBy: "max_decrease",
        adjustments: [{ rule: "max_decrease", before: 6 * 2 ** 30, after: 8 * 2 ** 30 }],
        mode: "live",
      },
    ],
    nextCursor: null,
  },
  AdmissionReviewRequest: {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: { group: "", version: "v1", kind: "Pod" },
      operation: "CREATE",
      namespace: "ml",
      object: { apiVersion: "v1", kind: "Pod", metadata: { name: "train-1" }, spec: { containers: [] } },
    },
  },
  AdmissionReviewResponse: {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
      patchType: "JSONPatch",
      patch:
        "W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjL2NvbnRhaW5lcnMvMC9yZXNvdXJjZXMvcmVxdWVzdHMvbWVtb3J5IiwidmFsdWUiOiI4R2kifV0=",
    },
  },
  SlurmAdviceRequest: {
    source: "cli_filter",
    user: "alice",
    options: { mem: "16G", time: "04:00:00" },
  },
  AccuracyReport: {
    generatedAt: "2026-12-02T10:00:00Z",
    mode: "shadow",
    slices: [
      {
        resource: "memory",
        predicted: 10,
        recommended: 9,
        coverage: 0.9,
        underPredictionRate: 0,
        weightedUnderPredictionRate: 0,
        slack: 0.4,
      },
    ],
    readiness: { ready: false, reasons: ["fewer than 500 ended jobs with a recorded prediction"] },
  },
};
