import { parseArgs } from "node:util";
import { UsageError } from "../cli-errors.js";
import { type CliIo, exitCodes } from "../cli-io.js";
import { helpTexts } from "../help.js";
import { connect, connectionOptions } from "./connection-options.js";

/**
 * `jobsight diagnose <job-id>`: print the diagnosis (Markdown or JSON) and exit 1 when a finding
 * has severity error, so a CI job can fail on it.
 */
export async function runDiagnose(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...connectionOptions,
      cluster: { type: "string" },
      json: { type: "boolean", default: false },
      // The older spelling of --json, kept as an alias.
      format: { type: "string", default: "markdown" },
    },
  });
  if (values.help) {
    io.stdout.write(helpTexts.diagnose);
    return exitCodes.ok;
  }
  if (positionals.length !== 1)
    throw new UsageError("diagnose needs exactly one job id: jobsight diagnose 4242");
  if (values.format !== "markdown" && values.format !== "json") {
    throw new UsageError(`--format must be markdown or json, not ${values.format}`);
  }
  const json = values.json || values.format === "json";
  const { config, client } = await connect({ ...values, cluster: undefined }, io);
  const cluster = values.cluster ?? config.cluster;
  const jobId = positionals[0];
  const diagnosis = await client.diagnoses.get(jobId, { cluster });
  if (json) {
    io.stdout.write(`${JSON.stringify(diagnosis, null, 2)}\n`);
  } else {
    const markdown = await client.diagnoses.get(jobId, { cluster, format: "markdown" });
    io.stdout.write(markdown.endsWith("\n") ? markdown : `${markdown}\n`);
  }
  return diagnosis.findings.some((f) => f.severity === "error") ? exitCodes.findings : exitCodes.ok;
}
