import type { FastifyPluginAsync } from "fastify";
import type { SlurmAdvisor } from "./slurm/slurm-advisor.js";

/** The path the Lua filters post to. */
export const SLURM_ADVICE_PATH = "/v1/schedulers/slurm/advice";

/** Options of {@link slurmAdviceRoute}. */
export type SlurmAdviceRouteOptions = {
  /** The advisor that answers. */
  advisor: SlurmAdvisor;
  /**
   * Largest request accepted; an option table is small.
   * @default 65536
   */
  bodyLimit?: number;
};

/**
 * `POST /v1/schedulers/slurm/advice`: takes SLURM's option table as JSON
 * (`{ "user": "alice", "options": { "mem": "16G", "time": "04:00:00" } }`) and answers
 * `text/plain` `key=value` lines for the `cli_filter.lua` and `job_submit.lua` examples (see
 * {@link SlurmAdvisor}): 200 for every submission it could read, 400 for a body it could not.
 *
 * @example
 * ```ts
 * await app.register(slurmAdviceRoute, { advisor: new SlurmAdvisor({ cluster: "hpc1", predict, policy }) });
 * ```
 */
export const slurmAdviceRoute: FastifyPluginAsync<SlurmAdviceRouteOptions> = async (app, options) => {
  app.post(SLURM_ADVICE_PATH, { bodyLimit: options.bodyLimit ?? 65_536 }, async (request, reply) => {
    const advice = await options.advisor.advise(request.body, request.log);
    return reply.code(advice.statusCode).type("text/plain; charset=utf-8").send(advice.text);
  });
};
