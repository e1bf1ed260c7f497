import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** One job line of a Standard Workload Format log; `-1` means unknown, exactly as in the file. */
export type SwfRecord = {
  jobNumber: number;
  /** Seconds since the log's `UnixStartTime`. */
  submitTime: number;
  waitTime: number;
  runTime: number;
  allocatedProcessors: number;
  /** Average CPU time used, seconds per processor. */
  averageCpuTime: number;
  /** Average used memory, kilobytes per processor. */
  usedMemoryKb: number;
  requestedProcessors: number;
  requestedTime: number;
  /** Requested memory, kilobytes per processor. */
  requestedMemoryKb: number;
  status: number;
  userId: number;
  groupId: number;
  executableId: number;
  queueNumber: number;
  partitionNumber: number;
  precedingJobNumber: number;
  thinkTime: number;
  /** 1-based line number in the file, for error reports. */
  line: number;
};

/** What the `;` comment lines at the top of a log say. */
export type SwfHeader = {
  /** Unix time (s) that the log's relative times count from; 0 when the header does not say. */
  unixStartTime: number;
  timeZoneString?: string;
  maxProcs?: number;
  /** Every `; Key: value` line, first occurrence of each key. */
  fields: Record<string, string>;
};

/** A line that is neither a comment nor a valid 18-field job. */
export type SwfBadLine = { line: number; reason: string; text: string };

/** Options of {@link SwfReader}. */
export type SwfReaderOptions = {
  /**
   * How many bad lines keep their details (line number, reason, text); all are counted.
   * @default 100
   */
  maxBadLineDetails?: number;
};

const FIELD_COUNT = 18;
const GZIP_MAGIC_0 = 0x1f;
const GZIP_MAGIC_1 = 0x8b;

/**
 * Streams the jobs of an SWF log (plain or gzip, detected from the magic bytes), filling `header`
 * as comment lines go by and counting every malformed line with its line number.
 *
 * @example
 * ```ts
 * const reader = SwfReader.fromFile("LANL-CM5-1994-4.1-cln.swf.gz");
 * for await (const job of reader) console.log(job.jobNumber, reader.header.unixStartTime);
 * console.log(reader.badLineCount, reader.badLines);
 * ```
 */
export class SwfReader implements AsyncIterable<SwfRecord> {
  readonly header: SwfHeader = { unixStartTime: 0, fields: {} };
  readonly badLines: SwfBadLine[] = [];
  badLineCount = 0;
  recordCount = 0;
  readonly #source: Readable;
  readonly #maxBadLineDetails: number;

  constructor(source: Readable, options: SwfReaderOptions = {}) {
    this.#source = source;
    this.#maxBadLineDetails = options.maxBadLineDetails ?? 100;
  }

  /** A reader over a file path, gunzipping when the file starts with the gzip magic bytes. */
  static fromFile(path: string, options?: SwfReaderOptions): SwfReader {
    return new SwfReader(createReadStream(path), options);
  }

  /** A reader over in-memory text or bytes (tests, uploads). */
  static fromBuffer(data: string | Uint8Array, options?: SwfReaderOptions): SwfReader {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    return new SwfReader(Readable.from([bytes]), options);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SwfRecord> {
    const text = await decompressIfGzip(this.#source);
    const lines = createInterface({ input: text, crlfDelay: Number.POSITIVE_INFINITY });
    let lineNumber = 0;
    for await (const raw of lines) {
      lineNumber++;
      const line = raw.trim();
      if (line === "") continue;
      if (line.startsWith(";")) {
        this.#readHeaderLine(line);
        continue;
      }
      const parsed = parseJobLine(line, lineNumber);
      if (typeof parsed === "string") {
        this.badLineCount++;
        if (this.badLines.length < this.#maxBadLineDetails) {
          this.badLines.push({ line: lineNumber, reason: parsed, text: raw.slice(0, 200) });
        }
        continue;
      }
      this.recordCount++;
      yield parsed;
    }
  }

  #readHeaderLine(line: string): void {
    const match = /^;\s*([A-Za-z][A-Za-z0-9 _-]*?)\s*:\s*(.*)$/.exec(line);
    if (!match) return;
    const key = match[1];
    const value = match[2].trim();
    if (!(key in this.header.fields)) this.header.fields[key] = value;
    if (key === "UnixStartTime") {
      const t = Number(value);
      if (Number.isFinite(t)) this.header.unixStartTime = t;
    } else if (key === "TimeZoneString") {
      this.header.timeZoneString = value;
    } else if (key === "MaxProcs") {
      const p = Number(value);
      if (Number.isFinite(p)) this.header.maxProcs = p;
    }
  }
}

/** Parses one job line, or returns why it is not one. */
export function parseJobLine(line: string, lineNumber: number): SwfRecord | string {
  const parts = line.split(/\s+/);
  if (parts.length !== FIELD_COUNT) return `expected ${FIELD_COUNT} fields, found ${parts.length}`;
  const v = new Array<number>(FIELD_COUNT);
  for (let i = 0; i < FIELD_COUNT; i++) {
    const n = Number(parts[i]);
    if (!Number.isFinite(n))
      return `field ${i + 1} is not a number: ${JSON.stringify(parts[i].slice(0, 40))}`;
    v[i] = n;
  }
  if (v[1] < 0) return "field 2 (submit time) is negative";
  return {
    jobNumber: v[0],
    submitTime: v[1],
    waitTime: v[2],
    runTime: v[3],
    allocatedProcessors: v[4],
    averageCpuTime: v[5],
    usedMemoryKb: v[6],
    requestedProcessors: v[7],
    requestedTime: v[8],
    requestedMemoryKb: v[9],
    status: v[10],
    userId: v[11],
    groupId: v[12],
    executableId: v[13],
    queueNumber: v[14],
    partitionNumber: v[15],
    precedingJobNumber: v[16],
    thinkTime: v[17],
    line: lineNumber,
  };
}

async function decompressIfGzip(source: Readable): Promise<Readable> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return Readable.from([]);
  const head: Buffer = Buffer.isBuffer(first.value) ? first.value : Buffer.from(first.value);
  async function* rest(): AsyncGenerator<Buffer> {
    yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    }
  }
  const stream = Readable.from(rest());
  if (head.length >= 2 && head[0] === GZIP_MAGIC_0 && head[1] === GZIP_MAGIC_1) {
    return stream.pipe(createGunzip());
  }
  return stream;
}
