import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  JobsightError,
  PermissionError,
} from "@jobsight/sdk";

/**
 * What to tell the researcher about a failure, one line per point: the SDK's typed errors say
 * which field, token or server is at fault.
 */
export function errorLines(error: unknown): string[] {
  if (error instanceof BadRequestError) {
    return ["The server refused the request:", ...error.fields.map((f) => `${f.path || "/"}: ${f.message}`)];
  }
  if (error instanceof AuthenticationError)
    return ["The API token was not accepted. Check it and try again."];
  if (error instanceof PermissionError) {
    const fields = error.body?.errors?.map((f) => `${f.path}: ${f.message}`) ?? [];
    return ["This token may not ask for that prediction.", ...fields];
  }
  if (error instanceof ConnectionError)
    return [`The Jobsight server could not be reached (${error.message}).`];
  if (error instanceof JobsightError) return [`${error.code}: ${error.message}`];
  return [error instanceof Error ? error.message : String(error)];
}
