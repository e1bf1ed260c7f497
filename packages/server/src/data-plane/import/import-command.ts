import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadServerConfig, setPath } from "../../config/config-sources.js";
import { openStorage } from "../storage/open-storage.js";
import type { ImportProgress, ImportReport } from "./import-history.js";
import { importSacctFile } from "./import-sacct.js";
import { importSwfFile } from "./import-swf.js";

// `sacct` is sacct's own text output (`sacct -P`), the name `jobsight import --help` documents.
const FORMATS = ["swf", "sacct", "sacct-json", "sacct-parsable"] as const;

function progressBar(stream: NodeJS.WriteStream): (p: ImportProgress) => void {
  let lastLog = 0;
  return (p) => {
    const text = `imported ${p.imported} · duplicates ${p.duplicates} · bad lines ${p.badLines} · line ${p.line}`;
    if (stream.isTTY) stream.write(`\r${text}\x1b[K`);
    else if (Date.now() - lastLog > 2000) {
      lastLog = Date.now();
      stream.write(`${text}\n`);
    }
  };
}

function summary(report: ImportReport): string {
  const lines = [
    `source ${report.sourceId}${report.resumedFrom ? ` (resumed after line ${report.resumedFrom})` : ""}`,
    // The counts are the source's over all its runs: say so when this run only skipped what an
    // earlier one committed, or a second import reads as if it had imported everything again.
    `imported ${report.imported}, duplicates ${report.duplicates}, bad lines ${report.badLines}${
      report.skipped > 0
        ? ` (all runs of this source; this run skipped the ${report.skipped} lines already committed)`
        : ""
    }, ${(report.elapsedMs / 1000).toFixed(1)} s`,
    ...report.badLineDetails.slice(0, 20).map((b) => `  line ${b.line}: ${b.reason}`),
  ];
  if (report.badLines > 20)
    lines.push(`  … ${report.badLines - Math.min(20, report.badLineDetails.length)} more`);
  return `${lines.join("\n")}\n`;
}

/**
 * `jobsight-server import <file> --format swf|sacct|sacct-json|sacct-parsable --cluster <id>`: imports
 * job history into the configured database (the embedded one by default) with a progress line.
 *
 * @example
 * ```sh
 * jobsight-server import LANL-CM5-1994-4.1-cln.swf.gz --format swf --cluster lanl-cm5
 * ```
 */
export async function runImportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      cluster: { type: "string" },
      config: { type: "string" },
      "database-url": { type: "string" },
      "data-dir": { type: "string" },
      "time-zone": { type: "string" },
      "batch-size": { type: "string" },
      restart: { type: "boolean" },
    },
  });
  const file = positionals[0];
  const format = values.format as (typeof FORMATS)[number] | undefined;
  if (!file || !format || !FORMATS.includes(format)) {
    process.stderr.write(
      `Usage: jobsight-server import <file> --format ${FORMATS.join("|")} [--cluster <id>] [--restart]\n`,
    );
    return 2;
  }
  if (format === "swf" && !values.cluster) {
    process.stderr.write("--cluster is required for SWF logs (they do not name their cluster)\n");
    return 2;
  }
  const overrides: Record<string, unknown> = {};
  if (values["database-url"]) setPath(overrides, "postgres.url", values["database-url"]);
  if (values["data-dir"]) setPath(overrides, "dataDir", values["data-dir"]);
  const config = await loadServerConfig({ file: values.config, env: process.env, overrides });
  const opened = await openStorage({
    url: config.postgres.url,
    embeddedDir: join(config.dataDir, "postgres"),
    embeddedBinDir: config.postgres.embeddedBinDir,
    // Never starts or stops the database of a running server: refused while one owns the folder.
    embeddedOwner: { kind: "command", name: "jobsight-server import" },
    timescale: config.postgres.timescale,
    policies: {
      retentionDays: config.ingest.retentionDays,
      compressAfterDays: config.ingest.compressAfterDays,
    },
  });
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const common = {
      storage: opened.storage,
      restart: values.restart ?? false,
      batchSize: values["batch-size"] ? Number(values["batch-size"]) : undefined,
      onProgress: progressBar(process.stderr),
      signal: controller.signal,
    };
    const report =
      format === "swf"
        ? await importSwfFile(file, { ...common, cluster: values.cluster! })
        : await importSacctFile(file, {
            ...common,
            format: format === "sacct-json" ? "json" : "parsable",
            cluster: values.cluster,
            timeZone: values["time-zone"],
          });
    if (process.stderr.isTTY) process.stderr.write("\n");
    process.stdout.write(summary(report));
    if (controller.signal.aborted)
      process.stdout.write("interrupted: run the same command again to resume\n");
    return 0;
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    await opened.close();
  }
}
