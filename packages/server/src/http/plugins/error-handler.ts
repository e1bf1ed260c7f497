import type { FastifyReply, FastifyRequest } from "fastify";
import { type JobsightError, NotFoundError } from "../../errors.js";
import { toJobsightError } from "../../to-jobsight-error.js";
import { globalPlugin } from "./global-plugin.js";

/** Options of {@link errorHandlerPlugin}. */
export type ErrorHandlerPluginOptions = {
  /**
   * Request body limit, named in 413 answers.
   * @default 16777216
   */
  bodyLimitBytes?: number;
};

/** Sends a {@link JobsightError} as an {@link ApiError} body with the matching status and headers. */
export function sendApiError(reply: FastifyReply, error: JobsightError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) {
    reply.header("retry-after", String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  }
  if (error.code === "UNAUTHENTICATED") reply.header("www-authenticate", 'Bearer realm="jobsight"');
  return reply.code(error.statusCode).type("application/json").send(error.toApiError());
}

/**
 * Makes every error answer, including unknown routes, an {@link ApiError}; logs 5xx with their
 * cause and request id, 4xx at debug level.
 */
export const errorHandlerPlugin = globalPlugin<ErrorHandlerPluginOptions>(
  "jobsight-error-handler",
  async (app, options) => {
    const limit = options.bodyLimitBytes ?? 16 * 1024 * 1024;
    app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const contentType = request.headers["content-type"]?.slice(0, 100);
      const mapped = toJobsightError(error, { bodyLimitBytes: limit, contentType });
      if (mapped.statusCode >= 500) {
        request.log.error({ err: error, code: mapped.code }, "request failed");
      } else {
        request.log.debug({ code: mapped.code, message: mapped.message }, "request refused");
      }
      return sendApiError(reply, mapped);
    });
    app.setNotFoundHandler((request, reply) =>
      sendApiError(reply, new NotFoundError(`No route ${request.method} ${request.url.split("?")[0]}`)),
    );
  },
);
