import {
  ConnectionError,
  HttpStatusError,
  JobsightError,
  ResponseValidationError,
  ServerError,
} from "../errors.js";
import { exitCodes } from "./cli-io.js";
import { ConfigError } from "./config.js";

/** A mistake in how the CLI was called; exits with the usage code. */
export class UsageError extends Error {
  readonly code = "USAGE";
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The exit code and the message a failure gets. */
export function describeFailure(error: unknown): { exitCode: number; message: string } {
  if (error instanceof UsageError || error instanceof ConfigError)
    return { exitCode: exitCodes.usage, message: error.message };
  if (error instanceof ConnectionError) return { exitCode: exitCodes.unreachable, message: error.message };
  if (error instanceof ServerError || error instanceof ResponseValidationError) {
    return { exitCode: exitCodes.unreachable, message: error.message };
  }
  if (error instanceof HttpStatusError)
    return { exitCode: exitCodes.usage, message: `${error.message} [${error.code}]` };
  if (error instanceof JobsightError) return { exitCode: exitCodes.unreachable, message: error.message };
  if (error instanceof SyntaxError || (error as NodeJS.ErrnoException)?.code === "ENOENT") {
    return { exitCode: exitCodes.usage, message: (error as Error).message };
  }
  return {
    exitCode: exitCodes.unreachable,
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  };
}
