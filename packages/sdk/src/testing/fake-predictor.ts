import type { JobRecord, PredictionRequest, ResourceName, ResourcePrediction } from "@jobsight/schemas";

type Target = {
  resource: ResourceName;
  unit: "bytes" | "cores" | "devices" | "seconds";
  requested: (r: PredictionRequest["spec"]["requested"]) => number | undefined;
  actual: (job: JobRecord) => number | undefined;
  censoredState?: string;
  round: (v: number) => number;
};

const MiB = 2 ** 20;
const targets: Target[] = [
  {
    resource: "memory",
    unit: "bytes",
    requested: (r) => r.memoryBytes,
    actual: (j) => j.peaks?.memoryBytes,
    censoredState: "OUT_OF_MEMORY",
    round: (v) => Math.ceil(v / MiB) * MiB,
  },
  {
    resource: "cores",
    unit: "cores",
    requested: (r) => r.cores,
    actual: (j) => j.peaks?.coresUsed,
    round: (v) => Math.max(1, Math.ceil(v)),
  },
  {
    resource: "gpus",
    unit: "devices",
    requested: (r) => r.gpus,
    actual: (j) => j.peaks?.gpusUsed,
    round: (v) => Math.ceil(v),
  },
  {
    resource: "gpuMemory",
    unit: "bytes",
    requested: (r) => r.gpuMemoryBytes,
    actual: (j) => j.peaks?.gpuMemoryBytes,
    round: (v) => Math.ceil(v / MiB) * MiB,
  },
  {
    resource: "walltime",
    unit: "seconds",
    requested: (r) => r.walltimeSeconds,
    actual: (j) => j.peaks?.runTimeSeconds,
    censoredState: "TIMEOUT",
    round: (v) => Math.max(60, Math.ceil(v / 60) * 60),
  },
];

/** The minimum number of similar ended jobs before the fake recommends anything. */
export const FAKE_MIN_JOBS = 3;

/**
 * The fake server's predictor: 1.2 × the largest value seen in the user's ended jobs (killed jobs
 * count with at least what they had), once there are {@link FAKE_MIN_JOBS} of them; otherwise an
 * explicit insufficient_evidence, like the real server. Deterministic, so tests can assert on it.
 */
export function fakePredict(request: PredictionRequest, history: JobRecord[]): ResourcePrediction[] {
  const { spec } = request;
  const wanted = request.resources ?? targets.map((t) => t.resource);
  const sameUser = history.filter(
    (j) => j.phase === "ended" && j.cluster === spec.cluster && j.spec.user === spec.user,
  );
  const sameExecutable = sameUser.filter((j) => spec.executable && j.spec.executable === spec.executable);
  const useExecutable = sameExecutable.length >= FAKE_MIN_JOBS;
  const group = useExecutable ? sameExecutable : sameUser;
  const groupName = useExecutable ? `user=${spec.user},executable=${spec.executable}` : `user=${spec.user}`;

  return targets
    .filter((t) => wanted.includes(t.resource))
    .map((t): ResourcePrediction => {
      const requested = t.requested(spec.requested);
      let censored = 0;
      const values: number[] = [];
      for (const job of group) {
        let value = t.actual(job);
        if (t.censoredState && job.outcome?.state === t.censoredState) {
          censored++;
          const had = t.requested(job.spec.requested);
          value = Math.max(value ?? 0, had ?? 0) || undefined;
        }
        if (value !== undefined) values.push(value);
      }
      const base = { resource: t.resource, ...(requested === undefined ? {} : { requested }) };
      if (values.length < FAKE_MIN_JOBS) {
        const none = values.length === 0 && group.length === 0;
        if (none && requested === undefined && (t.resource === "gpus" || t.resource === "gpuMemory")) {
          return {
            ...base,
            status: "insufficient_evidence",
            reasonCode: "not_requested",
            reason: "The job asks for no GPU.",
          };
        }
        return {
          ...base,
          status: "insufficient_evidence",
          reasonCode: none ? "new_user_and_application" : "too_few_similar_jobs",
          reason: `${values.length} similar ended job(s) with this measurement; ${FAKE_MIN_JOBS} are needed.`,
          evidence: { group: groupName, jobs: values.length },
        };
      }
      const max = Math.max(...values);
      const min = Math.min(...values);
      const value = t.round(max * 1.2);
      return {
        ...base,
        status: "ok",
        unit: t.unit,
        value,
        low: Math.min(t.round(min), value),
        high: value,
        nominalLevel: 0.9,
        confidence: Number((1 - 1 / (values.length + 1)).toFixed(3)),
        evidence: {
          group: groupName,
          jobs: values.length,
          ...(censored > 0 ? { censoredJobs: censored } : {}),
        },
      };
    });
}
