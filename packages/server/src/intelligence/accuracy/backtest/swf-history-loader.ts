import {
  type SwfBadLine,
  type SwfHeader,
  SwfReader,
  type SwfReaderOptions,
} from "../../../data-plane/import/swf-parser.js";
import type { HistoryJob } from "../../history-job.js";
import { swfRecordToHistoryJob } from "./swf-job-mapping.js";

/** Jobs of one SWF log, sorted by submit time, with what the parser could not read. */
export type SwfHistory = {
  header: SwfHeader;
  jobs: HistoryJob[];
  badLineCount: number;
  badLines: SwfBadLine[];
};

/**
 * Reads a whole SWF log (plain or gzip) into normalised jobs sorted by submit time (stable).
 *
 * @example
 * ```ts
 * const { jobs, badLineCount } = await loadSwfHistory("CEA-Curie-2011-2.1-cln.swf.gz");
 * ```
 */
export async function loadSwfHistory(path: string, options?: SwfReaderOptions): Promise<SwfHistory> {
  return readSwfHistory(SwfReader.fromFile(path, options));
}

/** Same as {@link loadSwfHistory}, from an already-open reader. */
export async function readSwfHistory(reader: SwfReader): Promise<SwfHistory> {
  const records = [];
  for await (const r of reader) records.push(r);
  const start = reader.header.unixStartTime;
  const jobs = records.map((r) => swfRecordToHistoryJob(r, start));
  const order = jobs.map((_, i) => i).sort((a, b) => jobs[a].submitTime - jobs[b].submitTime || a - b);
  return {
    header: reader.header,
    jobs: order.map((i) => jobs[i]),
    badLineCount: reader.badLineCount,
    badLines: reader.badLines,
  };
}
