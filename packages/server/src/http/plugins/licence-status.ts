import type { LicenceMonitor } from "../../platform/licence/licence-monitor.js";
import { globalPlugin } from "./global-plugin.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The licence as this server sees it (state, reason, grace end). */
    licence: LicenceMonitor;
  }
}

/** The response header that carries the licence state on every answer. */
export const LICENCE_HEADER = "jobsight-licence";

/** Options of {@link licenceStatusPlugin}. */
export type LicenceStatusPluginOptions = {
  /** The loaded licence. */
  monitor: LicenceMonitor;
};

/**
 * Makes the licence state visible without restricting anything: `app.licence`, and a
 * `Jobsight-Licence: valid|grace|expired|missing|invalid` header on every response, so clients
 * and operators notice an expiring licence long before anything else does. The node count is
 * refreshed in the background and stopped with the app.
 *
 * @example
 * ```ts
 * await app.register(licenceStatusPlugin, { monitor: await LicenceMonitor.load({ config: config.licence }) });
 * ```
 */
export const licenceStatusPlugin = globalPlugin<LicenceStatusPluginOptions>(
  "jobsight-licence",
  async (app, options) => {
    app.decorate("licence", options.monitor);
    options.monitor.start();
    app.addHook("onClose", async () => options.monitor.stop());
    app.addHook("onSend", async (_request, reply, payload) => {
      reply.header(LICENCE_HEADER, options.monitor.status().state);
      return payload;
    });
  },
);
