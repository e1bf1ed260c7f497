import type { AdmissionReviewRequest, SlurmAdviceRequest } from "@jobsight/schemas";
import type { PolicyAuditSink } from "../../data-plane/stores/policy-audit-record.js";
import { ForbiddenError, ValidationError } from "../../errors.js";
import type { HoldJudge } from "../../intelligence/alerts/actions/submission-hold.js";
import type { IntelligenceService } from "../../intelligence/intelligence-service.js";
import { KubernetesAdmission } from "../../intelligence/schedulers/kubernetes-admission.js";
import { servicePredictor } from "../../intelligence/schedulers/service-predictor.js";
import { SlurmAdvisor } from "../../intelligence/schedulers/slurm/slurm-advisor.js";
import type { Principal } from "../../platform/identity/principal.js";
import type { RouteContext, RouteHandlers } from "./route-handler.js";

/** Options of {@link schedulerHandlers}. */
export type SchedulerHandlersOptions = {
  /** Where every applied (or, in shadow mode, would-be) change is recorded. */
  audit: PolicyAuditSink;
  /** Holds a repeat offender's submission (SLURM advice, Kubernetes webhook). @default undefined (never) */
  hold?: HoldJudge;
  /**
   * How long the webhook waits for a prediction before admitting unchanged; keep it below the
   * webhook's `timeoutSeconds`.
   * @default 2000
   */
  admissionDeadlineMs?: number;
  /**
   * How long the SLURM advice waits for a prediction; keep it below the filters' curl `--max-time`.
   * @default 1500
   */
  slurmDeadlineMs?: number;
};

// Time kept back from the API server's deadline for the answer to travel back.
const ANSWER_MARGIN_MS = 300;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/**
 * How long the webhook may wait for predictions under the API server's `?timeout=` (its
 * `timeoutSeconds`, e.g. `3s`): that deadline less the answer's way back, or no limit of its own.
 */
export function answerWithin(timeout: string | undefined): number | undefined {
  const m = timeout ? /^(\d+)(ms|s|m)$/.exec(timeout) : null;
  if (!m) return undefined;
  return Math.max(100, Number(m[1]) * UNIT_MS[m[2]] - ANSWER_MARGIN_MS);
}

/** The cluster a scheduler token acts for, and who it is. */
function schedulerOf(principal: Principal | undefined): { cluster: string; user: string } {
  if (!principal?.cluster)
    throw new ForbiddenError("A scheduler token must be bound to a cluster; it acts only for that one");
  return { cluster: principal.cluster, user: principal.user };
}

// One integration per token identity: their outcome counters live as long as the server.
function memo<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

/**
 * The scheduler operations of the route table, over the intelligence service's predictor, its
 * policy and its mode (shadow: recorded, nothing changed): the Kubernetes admission webhook and
 * the SLURM filters' advice. Each acts only for the cluster its scheduler token is bound to.
 *
 * @example
 * ```ts
 * registerApiRoutes(app, { ...schedulerHandlers(service, { audit: new PolicyAuditStore(pool) }) });
 * ```
 */
export function schedulerHandlers(
  service: IntelligenceService,
  options: SchedulerHandlersOptions,
): RouteHandlers {
  const admissions = new Map<string, KubernetesAdmission>();
  const advisors = new Map<string, SlurmAdvisor>();
  const common = (cluster: string, user: string) => ({
    cluster,
    predict: servicePredictor(service, user),
    policy: () => service.policy(),
    mode: () => service.mode().mode,
    audit: options.audit,
  });
  return {
    admitKubernetesObject: async ({
      body,
      query,
      principal,
      request,
      reply,
    }: RouteContext<AdmissionReviewRequest, { timeout?: string }>) => {
      const { cluster, user } = schedulerOf(principal);
      const admission = memo(admissions, `${cluster}\u0000${user}`, () => {
        return new KubernetesAdmission({
          ...common(cluster, user),
          deadlineMs: options.admissionDeadlineMs,
          ...(options.hold ? { hold: options.hold } : {}),
        });
      });
      const result = await admission.review(body, request.log, { deadlineMs: answerWithin(query.timeout) });
      return reply.code(result.statusCode).send(result.body);
    },
    adviseSlurmSubmission: async ({ body, principal, request, reply }: RouteContext<SlurmAdviceRequest>) => {
      const { cluster, user } = schedulerOf(principal);
      if (body.cluster !== undefined && body.cluster !== cluster) {
        throw new ForbiddenError(`This token acts only for cluster ${cluster}`, [
          { path: "/cluster", message: `must be ${cluster} for this token` },
        ]);
      }
      const advisor = memo(advisors, `${cluster}\u0000${user}`, () => {
        return new SlurmAdvisor({
          ...common(cluster, user),
          deadlineMs: options.slurmDeadlineMs,
          ...(options.hold ? { hold: options.hold } : {}),
        });
      });
      const advice = await advisor.advise(body, request.log);
      if (advice.outcome === "bad_request") {
        // The schema already holds the body's shape; what is left is a submission naming no user.
        throw new ValidationError([{ path: "/user", message: "user (or uid) is required" }]);
      }
      return reply.code(advice.statusCode).type("text/plain; charset=utf-8").send(advice.text);
    },
  };
}
