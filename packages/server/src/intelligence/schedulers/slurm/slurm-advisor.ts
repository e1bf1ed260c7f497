import type { JobSpec, Policy, PredictionMode } from "@jobsight/schemas";
import type { PolicyAuditSink } from "../../../data-plane/stores/policy-audit-record.js";
import type { HoldJudge } from "../../alerts/actions/submission-hold.js";
import { applyPolicy } from "../../policy/apply-policy.js";
import { auditRecordsFor } from "../../policy/policy-audit.js";
import { OutcomeCounter } from "../outcome-counter.js";
import {
  type PredictFunction,
  type PredictionResult,
  type SchedulerLogger,
  SILENT_LOGGER,
} from "../predict-function.js";
import { PredictTimeoutError, withDeadline } from "../with-deadline.js";
import { type OptionChange, optionChanges, readSlurmOptions } from "./slurm-job-options.js";

/** The first line of every answer; a client that does not see it got something else (a proxy page). */
export const ADVICE_HEADER = "jobsight-advice 1";

/** What the advisor did with one submission. */
export type SlurmAdviceOutcome =
  | "changed"
  | "unchanged"
  | "shadow"
  | "timeout"
  | "predictor_error"
  | "bad_request"
  | "internal_error";

/** Options of {@link SlurmAdvisor}. */
export type SlurmAdvisorOptions = {
  /** The cluster id used when the request names none (or an invalid one). */
  cluster: string;
  predict: PredictFunction;
  /** The policy, or a function returning the current one. */
  policy: Policy | (() => Policy);
  /**
   * `shadow` records what would change and tells the filter to change nothing.
   * @default "live"
   */
  mode?: PredictionMode | (() => PredictionMode);
  /**
   * How long to wait for the prediction; keep it well below the filter's curl `--max-time`.
   * @default 1500
   */
  deadlineMs?: number;
  /**
   * Memory is set in multiples of this many bytes.
   * @default 1048576
   */
  memoryGranularityBytes?: number;
  /** Where every change is recorded. @default none */
  audit?: PolicyAuditSink;
  /** @default a silent logger */
  logger?: SchedulerLogger;
  /** @default () => new Date() */
  clock?: () => Date;
  /**
   * Whether to hold the submission (a repeat offender's, see `SubmissionHold`); a hold adds
   * `hold=1` and `hold.message=` to any answer. Fails open. @default undefined (never)
   */
  hold?: HoldJudge;
};

/** The answer: HTTP status and the `key=value` text the Lua filters read. */
export type SlurmAdvice = { statusCode: 200 | 400; text: string; outcome: SlurmAdviceOutcome };

const CLUSTER_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

type AdviceRequest = {
  source: "cli_filter" | "job_submit";
  cluster?: string;
  user: string;
  submittedBy?: string;
  options: Record<string, string>;
};

function readRequest(body: unknown): AdviceRequest | string {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return "the body must be a JSON object";
  const b = body as Record<string, unknown>;
  const raw = b.options;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return "options must be an object of SLURM option strings";
  const options: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>).slice(0, 64)) {
    if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value)))
      options[key] = String(value).slice(0, 4096);
  }
  const uid =
    typeof b.uid === "number" || (typeof b.uid === "string" && /^\d+$/.test(b.uid))
      ? String(b.uid)
      : undefined;
  const user =
    typeof b.user === "string" && b.user.trim()
      ? b.user.trim()
      : uid !== undefined
        ? `uid:${uid}`
        : undefined;
  if (!user) return "user (or uid) is required";
  const request: AdviceRequest = {
    source: b.source === "job_submit" ? "job_submit" : "cli_filter",
    user,
    options,
  };
  if (typeof b.cluster === "string" && CLUSTER_ID.test(b.cluster)) request.cluster = b.cluster;
  if (typeof b.submittedBy === "string" && b.submittedBy) request.submittedBy = b.submittedBy;
  return request;
}

// One line per key; values never hold a line break.
function answer(lines: [string, string][]): string {
  return `${[ADVICE_HEADER, ...lines.map(([k, v]) => `${k}=${v.replace(/[\r\n]+/g, " ")}`)].join("\n")}\n`;
}

function message(changes: OptionChange[], prediction: PredictionResult, policy: string): string {
  const parts = changes.map((c) => {
    const rule = c.rules.filter((r) => r !== "rounding").at(-1);
    return rule ? `${c.description} (limited by ${rule})` : c.description;
  });
  const jobs = Math.max(0, ...prediction.resources.map((r) => r.evidence?.jobs ?? 0));
  const evidence = jobs > 0 ? `, from ${jobs} similar past jobs` : "";
  return `jobsight: ${parts.join(", ")}${evidence} (model ${prediction.modelVersion}, policy ${policy})`;
}

/**
 * Advice for a SLURM submission about to be made, for `cli_filter.lua` and `job_submit.lua`: the
 * options to set under the policy, as plain `key=value` lines that Lua 5.1 reads without a JSON
 * library:
 * ```
 * jobsight-advice 1
 * status=changed
 * set.mem=8192
 * set.time=90
 * message=jobsight: --mem 16G->8G, --time 04:00:00->01:30:00, from 40 similar past jobs (model m-3, policy default)
 * ```
 * `status` is `changed`, `unchanged`, `shadow` or `error` (with `reason=`); only `changed` carries
 * `set.` lines. Fails open: a predictor error or timeout answers `status=error`. Any of them may
 * carry `hold=1` and `hold.message=…`: hold the job for confirmation (a repeat offender).
 *
 * @example
 * ```ts
 * const advisor = new SlurmAdvisor({ cluster: "hpc1", predict, policy });
 * const { text } = await advisor.advise({ user: "alice", options: { mem: "16G", time: "04:00:00" } });
 * ```
 */
export class SlurmAdvisor {
  private readonly counts = new OutcomeCounter<SlurmAdviceOutcome | "audit_failed">();

  constructor(private readonly options: SlurmAdvisorOptions) {}

  /** Counts of outcomes so far. */
  stats(): Partial<Record<SlurmAdviceOutcome | "audit_failed", number>> {
    return this.counts.snapshot();
  }

  async advise(
    body: unknown,
    log: SchedulerLogger = this.options.logger ?? SILENT_LOGGER,
  ): Promise<SlurmAdvice> {
    const request = readRequest(body);
    if (typeof request === "string")
      return this.done("bad_request", 400, [
        ["status", "error"],
        ["reason", request],
      ]);
    try {
      return await this.decide(request, log);
    } catch (error) {
      log.warn({ err: String(error) }, "jobsight slurm advice: internal error, submission unchanged");
      return this.done("internal_error", 200, [
        ["status", "error"],
        ["reason", "internal_error"],
      ]);
    }
  }

  private done(outcome: SlurmAdviceOutcome, statusCode: 200 | 400, lines: [string, string][]): SlurmAdvice {
    this.counts.add(outcome);
    return { statusCode, text: answer(lines), outcome };
  }

  private async decide(request: AdviceRequest, log: SchedulerLogger): Promise<SlurmAdvice> {
    const cluster = request.cluster ?? this.options.cluster;
    const read = readSlurmOptions(request.options, { cluster, user: request.user });
    const [holding, answer] = await Promise.all([
      this.holdLines(read.spec, cluster, log),
      this.adviseOn(request, read, cluster, log),
    ]);
    if (holding.length === 0) return answer;
    return {
      ...answer,
      text: `${answer.text}${holding.map(([k, v]) => `${k}=${v.replace(/[\r\n]+/g, " ")}\n`).join("")}`,
    };
  }

  // Judged beside the prediction, so that a predictor failing open still holds.
  private async holdLines(spec: JobSpec, cluster: string, log: SchedulerLogger): Promise<[string, string][]> {
    if (!this.options.hold) return [];
    try {
      const decision = await withDeadline(this.options.deadlineMs ?? 1500, () =>
        this.options.hold!(spec, cluster),
      );
      if (!decision?.hold) return [];
      log.info({ user: spec.user, job: spec.jobName }, "jobsight slurm advice: submission held");
      return [
        ["hold", "1"],
        ["hold.message", decision.message],
      ];
    } catch (error) {
      log.warn({ err: String(error) }, "jobsight slurm advice: hold not judged, submission not held");
      return [];
    }
  }

  private async adviseOn(
    request: AdviceRequest,
    read: ReturnType<typeof readSlurmOptions>,
    cluster: string,
    log: SchedulerLogger,
  ): Promise<SlurmAdvice> {
    let prediction: PredictionResult;
    try {
      prediction = await withDeadline(this.options.deadlineMs ?? 1500, (signal) =>
        this.options.predict(read.spec, { signal }),
      );
    } catch (error) {
      const outcome = error instanceof PredictTimeoutError ? "timeout" : "predictor_error";
      log.warn(
        { reason: outcome, err: String(error), user: request.user },
        "jobsight slurm advice: submission unchanged",
      );
      return this.done(outcome, 200, [
        ["status", "error"],
        ["reason", outcome],
      ]);
    }
    const policy = typeof this.options.policy === "function" ? this.options.policy() : this.options.policy;
    const configured =
      typeof this.options.mode === "function" ? this.options.mode() : (this.options.mode ?? "live");
    const mode = configured === "shadow" || prediction.mode === "shadow" ? "shadow" : "live";
    const decision = applyPolicy(prediction.resources, read.spec, policy, {
      mode,
      memoryGranularityBytes: this.options.memoryGranularityBytes,
    });
    const changes = optionChanges(read, decision.resources);
    const written = new Set(changes.map((c) => c.resource));
    const records = auditRecordsFor(
      { ...decision, resources: decision.resources.filter((r) => written.has(r.resource)) },
      {
        cluster,
        actor: request.source === "job_submit" ? "slurm-job-submit" : "slurm-cli-filter",
        user: read.spec.user,
        submittedBy: request.submittedBy,
        job: read.spec.jobName ?? read.spec.executable ?? "sbatch",
        modelVersion: prediction.modelVersion,
        policy: policy.name,
        predictionId: prediction.id,
        at: this.options.clock?.(),
      },
    );
    this.recordAudit(records, log);
    if (changes.length === 0) return this.done("unchanged", 200, [["status", "unchanged"]]);
    if (mode === "shadow") return this.done("shadow", 200, [["status", "shadow"]]);
    log.info(
      { user: read.spec.user, changes: changes.map((c) => c.description) },
      "jobsight slurm advice: changed",
    );
    return this.done("changed", 200, [
      ["status", "changed"],
      ...changes.map((c): [string, string] => [`set.${c.key}`, c.value]),
      ["message", message(changes, prediction, policy.name)],
    ]);
  }

  private recordAudit(records: Parameters<PolicyAuditSink["record"]>[0], log: SchedulerLogger): void {
    if (!this.options.audit || records.length === 0) return;
    this.options.audit.record(records).catch((error: unknown) => {
      this.counts.add("audit_failed");
      log.warn({ err: String(error) }, "jobsight slurm advice: audit not recorded");
    });
  }
}
