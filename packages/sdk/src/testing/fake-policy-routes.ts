import type {
  PolicyAuditPage,
  PolicySimulation,
  PolicySimulationRequest,
  ResourceName,
  ResourcePrediction,
} from "@jobsight/schemas";
import type { FakeAnswer, FakeRouteContext } from "./fake-route-context.js";

const RESOURCES: readonly ResourceName[] = ["memory", "cores", "gpus", "gpuMemory", "walltime"];
const DAY_MS = 86_400_000;

/**
 * `POST /v1/policy/simulate` on the fake's recorded predictions. The fake applies only the
 * policy's `leaveAlone` and `optOutUsers`; the real server applies every rule. Enough for a
 * client to exercise the call and read a well-formed answer.
 */
export function fakeSimulatePolicy(ctx: FakeRouteContext): FakeAnswer {
  const body = ctx.body as PolicySimulationRequest;
  const to = body.to ?? ctx.now().toISOString();
  const from = body.from ?? new Date(Date.parse(to) - 7 * DAY_MS).toISOString();
  const recorded = [...ctx.store.predictions.values()].filter(
    (p) =>
      (!body.cluster || p.cluster === body.cluster) &&
      Date.parse(p.createdAt) >= Date.parse(from) &&
      Date.parse(p.createdAt) < Date.parse(to),
  );
  const resources = RESOURCES.map((resource) => {
    const sim = {
      resource,
      jobs: 0,
      changed: 0,
      raised: 0,
      lowered: 0,
      filled: 0,
      held: {} as Record<string, number>,
      limitedBy: {} as Record<string, number>,
      requestedTotal: 0,
      appliedTotal: 0,
    };
    for (const p of recorded) {
      const all = (ctx.store.idempotent.get(`resources:${p.id}`) as ResourcePrediction[] | undefined) ?? [];
      const r = all.find((x) => x.resource === resource);
      if (!r) continue;
      sim.jobs++;
      const held =
        r.status !== "ok"
          ? "insufficient_evidence"
          : body.policy.optOutUsers?.includes(p.user)
            ? "user_opt_out"
            : body.policy.leaveAlone?.includes(resource)
              ? "leave_alone"
              : undefined;
      const requested = r.requested;
      if (held || r.status !== "ok") {
        if (held) sim.held[held] = (sim.held[held] ?? 0) + 1;
        if (requested !== undefined) {
          sim.requestedTotal += requested;
          sim.appliedTotal += requested;
        }
        continue;
      }
      if (requested === undefined) sim.filled++;
      else {
        sim.requestedTotal += requested;
        sim.appliedTotal += r.value;
        if (r.value > requested) sim.raised++;
        if (r.value < requested) sim.lowered++;
      }
      if (r.value !== requested) sim.changed++;
    }
    return sim;
  }).filter((sim) => sim.jobs > 0);
  const answer: PolicySimulation = { policy: body.policy.name, from, to, jobs: recorded.length, resources };
  return { status: 200, json: answer };
}

/** `GET /v1/policy/audit`: the fake never applies a policy, so its audit is what tests seeded. */
export function fakePolicyAudit(ctx: FakeRouteContext): FakeAnswer {
  const q = ctx.query as { cluster?: string; user?: string; limit?: number; cursor?: string };
  const items = ctx.store.policyAudit
    .filter((r) => (!q.cluster || r.cluster === q.cluster) && (!q.user || r.user === q.user))
    .sort((a, b) => Date.parse(b.recordedAt) - Date.parse(a.recordedAt));
  const offset = q.cursor ? Number.parseInt(q.cursor.replace(/^o/, ""), 10) : 0;
  const limit = Number(q.limit ?? 100);
  const page: PolicyAuditPage = {
    items: items.slice(offset, offset + limit),
    nextCursor: offset + limit < items.length ? `o${offset + limit}` : null,
  };
  return { status: 200, json: page };
}

/** The admission webhook of the fake: always allowed, never changed (it has no policy engine). */
export function fakeAdmission(ctx: FakeRouteContext): FakeAnswer {
  const review = ctx.body as { apiVersion: string; request?: { uid?: unknown } };
  const uid = typeof review.request?.uid === "string" ? review.request.uid : "";
  return {
    status: 200,
    json: { apiVersion: review.apiVersion, kind: "AdmissionReview", response: { uid, allowed: true } },
  };
}

/** The SLURM filters' advice of the fake: the submission goes through unchanged. */
export function fakeSlurmAdvice(): FakeAnswer {
  return {
    status: 200,
    text: "jobsight-advice 1\nstatus=unchanged\nmessage=jobsight: fake server, nothing changed\n",
    contentType: "text/plain; charset=utf-8",
  };
}
