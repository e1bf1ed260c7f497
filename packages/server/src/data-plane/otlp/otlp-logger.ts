import type { FastifyBaseLogger } from "fastify";

/** The part of a pino/fastify logger the OTLP receivers write to. */
export type OtlpLogger = Pick<FastifyBaseLogger, "debug" | "info" | "warn" | "error">;
