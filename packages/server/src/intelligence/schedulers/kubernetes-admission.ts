import type { ApiError, Policy, PredictionMode } from "@jobsight/schemas";
import type { PolicyAuditRecord, PolicyAuditSink } from "../../data-plane/stores/policy-audit-record.js";
import { ValidationError } from "../../errors.js";
import type { HoldJudge } from "../alerts/actions/submission-hold.js";
import { admissionHold, withHold } from "./kubernetes/admission-hold.js";
import { planResize, type ResizeTarget } from "./kubernetes/admission-resize.js";
import {
  type AdmissionRequest,
  type AdmissionReviewResponse,
  admissionReviewResponse,
  readAdmissionReview,
} from "./kubernetes/admission-review.js";
import { CHANGES_ANNOTATION, namespaceAllowed, namespaceOf } from "./kubernetes/changes-annotation.js";
import { jobSpecOf, mainContainer } from "./kubernetes/pod-job-spec.js";
import { podWorkloads } from "./kubernetes/pod-workloads.js";
import type { InitContainerMode } from "./kubernetes/workload-plan.js";
import { OutcomeCounter } from "./outcome-counter.js";
import {
  type PredictFunction,
  type PredictionResult,
  type SchedulerLogger,
  SILENT_LOGGER,
} from "./predict-function.js";
import { PredictTimeoutError, withDeadline } from "./with-deadline.js";

/** What the webhook did with one review. */
export type AdmissionOutcome =
  | "patched"
  | "unchanged"
  | "shadow"
  | "not_create"
  | "unsupported_kind"
  | "namespace_excluded"
  | "opted_out"
  | "already_applied"
  | "timeout"
  | "predictor_error"
  | "malformed_review"
  | "not_a_review"
  | "internal_error";

/** Options of {@link KubernetesAdmission}. */
export type KubernetesAdmissionOptions = {
  /** The registered id of the cluster the webhook serves. */
  cluster: string;
  /** Asks the intelligence plane for a prediction. */
  predict: PredictFunction;
  /** The policy, or a function returning the current one (read on every review). */
  policy: Policy | (() => Policy);
  /**
   * `shadow` records what would change and patches nothing. A prediction in shadow mode also
   * keeps the webhook in shadow.
   * @default "live"
   */
  mode?: PredictionMode | (() => PredictionMode);
  /**
   * How long to wait for predictions before admitting the object unchanged; keep it below the
   * webhook's `timeoutSeconds`.
   * @default 2000
   */
  deadlineMs?: number;
  /**
   * `leave` keeps init containers as they are; `match-main` gives them the main container's new values.
   * @default "leave"
   */
  initContainers?: InitContainerMode;
  /**
   * Memory is set in multiples of this many bytes.
   * @default 1048576
   */
  memoryGranularityBytes?: number;
  /** Where every change (or, in shadow mode, every would-be change) is recorded. @default none */
  audit?: PolicyAuditSink;
  /** Holds a repeat offender's Job or bare Pod for confirmation (see `admission-hold.ts`). @default never */
  hold?: HoldJudge;
  /** @default a silent logger */
  logger?: SchedulerLogger;
  /** @default () => new Date() */
  clock?: () => Date;
};

/** The HTTP answer to one review. */
export type AdmissionResult = {
  statusCode: 200 | 400;
  body: AdmissionReviewResponse | ApiError;
  outcome: AdmissionOutcome;
};

/**
 * The mutating admission webhook: for Pods, Jobs, CronJobs and Argo workflows it asks for a
 * prediction and answers with a JSONPatch setting the main container's `resources` under the
 * policy, and the `jobsight.io/changes` annotation. It never blocks anything: on any error or
 * after the deadline the object is admitted unchanged and the reason logged and counted.
 *
 * @example
 * ```ts
 * const webhook = new KubernetesAdmission({ cluster: "k8s1", predict, policy });
 * const { statusCode, body } = await webhook.review(admissionReview);
 * ```
 */
export class KubernetesAdmission {
  private readonly counts = new OutcomeCounter<AdmissionOutcome | "audit_failed" | "held">();
  private readonly deadlineMs: number;

  constructor(private readonly options: KubernetesAdmissionOptions) {
    this.deadlineMs = options.deadlineMs ?? 2000;
  }

  /** Counts of outcomes so far, with `audit_failed` (records the audit sink refused) and `held`. */
  stats(): Partial<Record<AdmissionOutcome | "audit_failed" | "held", number>> {
    return this.counts.snapshot();
  }

  /**
   * Answer one AdmissionReview body. `deadlineMs` shortens the wait for predictions for this
   * review (the API server's own `?timeout=` is shorter than the configured deadline).
   */
  async review(
    body: unknown,
    log: SchedulerLogger = this.options.logger ?? SILENT_LOGGER,
    call: { deadlineMs?: number } = {},
  ): Promise<AdmissionResult> {
    const read = readAdmissionReview(body);
    if (read.type === "not-a-review") {
      this.counts.add("not_a_review");
      const error = new ValidationError([{ path: "/kind", message: read.message }], read.message);
      return { statusCode: 400, body: error.toApiError(), outcome: "not_a_review" };
    }
    if (read.type === "malformed") {
      log.warn(
        { reason: read.message, uid: read.uid },
        "jobsight admission: malformed review admitted unchanged",
      );
      return this.answer("malformed_review", read.apiVersion, read.uid, {
        message: `jobsight: ${read.message}; admitted unchanged`,
      });
    }
    const { apiVersion, request } = read;
    const deadlineMs = Math.min(this.deadlineMs, call.deadlineMs ?? Number.POSITIVE_INFINITY);
    // Judged beside the prediction, so that a predictor failing open still holds.
    const policy = typeof this.options.policy === "function" ? this.options.policy() : this.options.policy;
    const context = { cluster: this.options.cluster, policy, deadlineMs };
    const held = this.options.hold && admissionHold(this.options.hold, request, context, log);
    let result: AdmissionResult;
    try {
      result = await this.decide(apiVersion, request, log, deadlineMs);
    } catch (error) {
      result = this.failOpen("internal_error", apiVersion, request.uid, error, log);
    }
    const hold = await held;
    if (!hold) return result;
    this.counts.add("held");
    return { ...result, body: withHold(result.body as AdmissionReviewResponse, hold) };
  }

  private failOpen(
    outcome: AdmissionOutcome,
    apiVersion: string,
    uid: string,
    error: unknown,
    log: SchedulerLogger,
  ): AdmissionResult {
    log.warn({ uid, reason: outcome, err: String(error) }, "jobsight admission: admitted unchanged");
    return this.answer(outcome, apiVersion, uid, { message: `jobsight: ${outcome}; admitted unchanged` });
  }

  private answer(
    outcome: AdmissionOutcome,
    apiVersion: string,
    uid: string,
    options: Parameters<typeof admissionReviewResponse>[2] = {},
  ): AdmissionResult {
    this.counts.add(outcome);
    return { statusCode: 200, body: admissionReviewResponse(apiVersion, uid, options), outcome };
  }

  private async decide(
    apiVersion: string,
    request: AdmissionRequest,
    log: SchedulerLogger,
    deadlineMs: number,
  ): Promise<AdmissionResult> {
    const pass = (outcome: AdmissionOutcome) => this.answer(outcome, apiVersion, request.uid);
    if (request.operation !== "CREATE") return pass("not_create");
    const workloads = podWorkloads({
      kind: request.kind.kind,
      namespace: request.namespace,
      name: request.name,
      object: request.object,
    });
    if (workloads.length === 0) return pass("unsupported_kind");
    const policy = typeof this.options.policy === "function" ? this.options.policy() : this.options.policy;
    const namespace = namespaceOf(request.namespace, request.object);
    if (!namespaceAllowed(policy, namespace)) return pass("namespace_excluded");

    const targets: ResizeTarget[] = [];
    let skipped: AdmissionOutcome = "unchanged";
    for (const workload of workloads) {
      const main = mainContainer(workload);
      if (policy.optOutLabel && workload.labels[policy.optOutLabel] === "false") skipped = "opted_out";
      else if (workload.annotations[CHANGES_ANNOTATION] !== undefined) skipped = "already_applied";
      else if (main) targets.push({ workload, main });
    }
    if (targets.length === 0) return pass(skipped);

    const context = { cluster: this.options.cluster, namespace, requestUser: request.userInfo?.username };
    const specs = targets.map((t) => jobSpecOf(t.workload, t.main, context));
    let predictions: PredictionResult[];
    try {
      predictions = await withDeadline(deadlineMs, (signal) =>
        Promise.all(specs.map((spec) => this.options.predict(spec, { signal }))),
      );
    } catch (error) {
      const outcome = error instanceof PredictTimeoutError ? "timeout" : "predictor_error";
      return this.failOpen(outcome, apiVersion, request.uid, error, log);
    }

    const configured =
      typeof this.options.mode === "function" ? this.options.mode() : (this.options.mode ?? "live");
    const { ops, summary, records, shadow } = planResize(
      request,
      targets,
      specs,
      predictions,
      {
        cluster: this.options.cluster,
        policy,
        mode: configured,
        initContainers: this.options.initContainers ?? "leave",
        memoryGranularityBytes: this.options.memoryGranularityBytes,
        at: this.options.clock?.(),
      },
      log,
    );

    if (records.length > 0 && !request.dryRun) this.recordAudit(records, log);
    if (ops.length === 0) return pass(shadow ? "shadow" : "unchanged");
    log.info({ uid: request.uid, changes: summary }, "jobsight admission: patched");
    const warnings = [truncate(`jobsight resized ${summary.join("; ")}`, 512)];
    return this.answer("patched", apiVersion, request.uid, { patch: ops, warnings });
  }

  // Recording never delays or fails an admission: it runs after the answer is decided.
  private recordAudit(records: PolicyAuditRecord[], log: SchedulerLogger): void {
    const sink = this.options.audit;
    if (!sink) return;
    sink.record(records).catch((error: unknown) => {
      this.counts.add("audit_failed");
      log.warn({ err: String(error), records: records.length }, "jobsight admission: audit not recorded");
    });
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
