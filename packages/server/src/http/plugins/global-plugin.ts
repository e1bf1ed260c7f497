import type { FastifyInstance } from "fastify";

/** A fastify plugin whose decorators and hooks apply to the whole app, not just its own scope. */
export type GlobalPlugin<O> = ((app: FastifyInstance, options: O) => Promise<void>) & {
  [key: symbol]: unknown;
};

/**
 * Marks a plugin as not encapsulated (what `fastify-plugin` does, without the dependency): its
 * decorators such as `app.storage` are visible to every route registered after it.
 *
 * @example
 * ```ts
 * export const postgresPlugin = globalPlugin("jobsight-postgres", async (app, options) => { ... });
 * await app.register(postgresPlugin, options);
 * ```
 */
export function globalPlugin<O>(
  name: string,
  plugin: (app: FastifyInstance, options: O) => Promise<void>,
): GlobalPlugin<O> {
  const wrapped = plugin as GlobalPlugin<O>;
  wrapped[Symbol.for("skip-override")] = true;
  wrapped[Symbol.for("fastify.display-name")] = name;
  return wrapped;
}
