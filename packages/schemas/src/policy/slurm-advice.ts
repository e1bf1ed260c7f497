import { type Static, Type } from "@sinclair/typebox";

/**
 * What the SLURM Lua filters (`cli_filter.lua`, `job_submit.lua`) send before a job is submitted:
 * the submission's option table as strings. The answer is `text/plain` `key=value` lines (see the
 * server's `SlurmAdvisor`), which Lua 5.1 reads without a JSON library.
 *
 * @example
 * ```ts
 * const body: SlurmAdviceRequest = { source: "cli_filter", user: "alice", options: { mem: "16G", time: "04:00:00" } };
 * ```
 */
export const SlurmAdviceRequest = Type.Object(
  {
    source: Type.Optional(
      Type.Union([Type.Literal("cli_filter"), Type.Literal("job_submit")], {
        description: "Which filter asks; cli_filter by default.",
      }),
    ),
    cluster: Type.Optional(
      Type.String({ description: "The cluster; must be the scheduler token's own when given." }),
    ),
    user: Type.Optional(Type.String({ description: "The user whose job it is (or give uid)." })),
    uid: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: "Numeric user id." })),
    submittedBy: Type.Optional(Type.String({ description: "Who submits it, when someone else (root)." })),
    options: Type.Record(Type.String(), Type.Unknown(), {
      description: "SLURM's option table: mem, time, cpus-per-task, partition, job-name, …",
    }),
  },
  {
    $id: "SlurmAdviceRequest",
    additionalProperties: true,
    description: "A SLURM submission about to be made, as the Lua filters see it.",
  },
);
export type SlurmAdviceRequest = Static<typeof SlurmAdviceRequest>;
