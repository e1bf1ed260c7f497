import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import {
  fileSourceId,
  type ImportHistoryOptions,
  type ImportItem,
  type ImportReport,
  importHistory,
} from "./import-history.js";
import { sacctJobToRecord } from "./sacct-job.js";
import { readSacctParsable } from "./sacct-parsable-parser.js";
import { readSacctJson } from "./sacct-parser.js";

/** Options of {@link importSacctFile}. */
export type ImportSacctOptions = Omit<ImportHistoryOptions, "sourceId" | "sourceKind"> & {
  /** `json` (`sacct --json`) or `parsable` (`sacct --parsable2` with a header). */
  format: "json" | "parsable";
  /** Cluster id for every job; default: the cluster named in the export. @default undefined */
  cluster?: string;
  /** Time zone of `--parsable2` timestamps. @default "UTC" */
  timeZone?: string;
  /** Checkpoint identity. @default from the file's size and first MiB */
  sourceId?: string;
};

/**
 * Turns a sacct export into import items. `--parsable2` exit codes are trusted; `--json`'s exit
 * code 0 on FAILED jobs is not (SLURM 22.05 reports exit 1 and 3 that way).
 *
 * @example
 * ```ts
 * for await (const item of sacctItems(createReadStream("sacct.json"), "json")) …
 * ```
 */
export async function* sacctItems(
  source: Readable,
  format: "json" | "parsable",
  options: { cluster?: string; timeZone?: string } = {},
): AsyncGenerator<ImportItem> {
  if (format === "json") {
    for await (const item of readSacctJson(source)) {
      if ("error" in item) yield { line: item.index, error: item.error };
      else yield { line: item.index, record: sacctJobToRecord(item.job, { cluster: options.cluster }) };
    }
    return;
  }
  for await (const item of readSacctParsable(source, { timeZone: options.timeZone })) {
    if ("error" in item) yield item;
    else
      yield {
        line: item.line,
        record: sacctJobToRecord(item.job, { cluster: options.cluster, exitTrusted: true }),
      };
  }
}

/**
 * Imports a `sacct --json` or `sacct --parsable2` file: streaming, resumable, idempotent.
 *
 * @example
 * ```ts
 * const report = await importSacctFile("sacct.json", { storage, format: "json", cluster: "hpc1" });
 * console.log(report.imported, report.badLines);
 * ```
 */
export async function importSacctFile(path: string, options: ImportSacctOptions): Promise<ImportReport> {
  const kind = `sacct-${options.format}`;
  const sourceId = options.sourceId ?? (await fileSourceId(path, kind, options.cluster));
  const stream = createReadStream(path);
  try {
    return await importHistory(sacctItems(stream, options.format, options), {
      ...options,
      sourceId,
      sourceKind: kind,
    });
  } finally {
    stream.destroy();
  }
}
