import { apiRoutes } from "@jobsight/schemas";
import type { FastifyPluginAsync } from "fastify";
import type { KubernetesAdmission } from "../kubernetes-admission.js";
import type { SlurmAdvisor } from "../slurm/slurm-advisor.js";

// Test harnesses: the admission webhook and the SLURM advice mounted without the app around them
// (no tokens, no policy store), to drive an admission or advisor built by the test. The server
// serves both through its route table (http/routes/scheduler-handlers.ts).

function pathOf(operationId: string): string {
  const route = apiRoutes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no route ${operationId} in the route table`);
  return route.path;
}

/** Where the API server sends the reviews, from the route table. */
export const ADMISSION_PATH = pathOf("admitKubernetesObject");

/** Where the Lua filters post, from the route table. */
export const SLURM_ADVICE_PATH = pathOf("adviseSlurmSubmission");

/** `POST` {@link ADMISSION_PATH} answered by `admission`. */
export const admissionRoute: FastifyPluginAsync<{ admission: KubernetesAdmission }> = async (
  app,
  options,
) => {
  app.post(ADMISSION_PATH, { bodyLimit: 8 * 2 ** 20 }, async (request, reply) => {
    const result = await options.admission.review(request.body, request.log);
    return reply.code(result.statusCode).send(result.body);
  });
};

/** `POST` {@link SLURM_ADVICE_PATH} answered by `advisor`. */
export const slurmAdviceRoute: FastifyPluginAsync<{ advisor: SlurmAdvisor }> = async (app, options) => {
  app.post(SLURM_ADVICE_PATH, { bodyLimit: 65_536 }, async (request, reply) => {
    const advice = await options.advisor.advise(request.body, request.log);
    return reply.code(advice.statusCode).type("text/plain; charset=utf-8").send(advice.text);
  });
};
