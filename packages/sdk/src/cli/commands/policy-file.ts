import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { checkPolicy, type Policy, validatePolicy } from "@jobsight/schemas";
import { UsageError } from "../cli-errors.js";
import type { CliIo } from "../cli-io.js";
import { formatAmount } from "./policy-render.js";

/**
 * Read a policy JSON file and check it against the schema, then for contradicting rules; every
 * problem is reported at once as `path: message` in a {@link UsageError}, so nothing half-checked
 * reaches the server.
 */
export async function readPolicyFile(file: string, io: CliIo): Promise<Policy> {
  const text = await readFile(resolve(io.cwd, file), "utf8").catch((e: Error) => {
    throw new UsageError(`${file}: ${e.message}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
  const result = validatePolicy(value);
  // Contradictions are looked for only in a policy of the right shape, as the server does: rules
  // of the wrong type cannot be compared.
  // The server's own check (`checkPolicy`, shared through @jobsight/schemas), with amounts written
  // for people, so `validate` answers offline what `set` would.
  const problems = result.ok ? checkPolicy(result.value, { formatAmount }) : result.errors;
  if (!result.ok || problems.length > 0) {
    const lines = problems.map((p) => `${p.path || "/"}: ${p.message}`);
    const count = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
    throw new UsageError(`${file}: not a valid policy (${count}):\n  ${lines.join("\n  ")}`);
  }
  return result.value;
}
