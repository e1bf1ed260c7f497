import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One record the server acknowledged (answered 200 for), with the spool sequence it had. */
export type AckedRecord = { seq: number; value: Record<string, unknown> };

/** Figures of what went through the recorder, reset per round by the caller. */
export type AckFigures = {
  /** Batches answered 200, and records in them. */
  ackedBatches: number;
  ackedRecords: number;
  /** Records the server reported as already stored (resends absorbed). */
  duplicates: number;
  /** Requests that found the server down or answering with an error (retried by the collector). */
  failedRequests: number;
};

const ITEMS = { "/v1/usage": "samples", "/v1/jobs": "records", "/v1/events": "events" } as const;
/** An ingest route the recorder passes on. */
export type IngestPath = keyof typeof ITEMS;

/**
 * A recording pass-through between the collectors and the server: it forwards every ingest
 * request to the server of the moment (whose port changes at each restart) and keeps what the
 * server acknowledged, by spool sequence number. The collector's batch key is
 * `<spool id>:<first seq>-<last seq>` over consecutive records, so the n-th record of a batch has
 * sequence first + n. A server that is down gets the collector a 502, which it retries like a
 * refused connection.
 *
 * @example
 * ```ts
 * const recorder = await AckRecorder.start();
 * recorder.upstream = server.url;
 * // collectors send to recorder.url …
 * recorder.acked("/v1/usage").get(17);
 * ```
 */
export class AckRecorder {
  /** Base URL of the server requests go to; undefined while it is down. */
  upstream: string | undefined;
  figures: AckFigures = { ackedBatches: 0, ackedRecords: 0, duplicates: 0, failedRequests: 0 };
  /** Batches whose key did not span exactly their records: the keys would not be idempotent. */
  readonly malformedKeys: string[] = [];
  /** Records forwarded (answered or not), for "nothing stored that nobody sent". */
  readonly forwarded = new Map<IngestPath, Record<string, unknown>[]>();
  private readonly byPath = new Map<IngestPath, Map<number, AckedRecord[]>>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<AckRecorder> {
    let recorder: AckRecorder | undefined;
    const server = createServer((req, res) => {
      recorder!.handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    recorder = new AckRecorder(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return recorder;
  }

  /**
   * What the server acknowledged on `path`, by sequence: every acknowledgement of that sequence
   * (a resend after a lost answer is acknowledged again).
   */
  acked(path: IngestPath): Map<number, AckedRecord[]> {
    const map = this.byPath.get(path) ?? new Map<number, AckedRecord[]>();
    this.byPath.set(path, map);
    return map;
  }

  /**
   * A copy of what the server acknowledged on `path` so far. Taken before reading the database,
   * it holds only what was committed before the read (the server answers after COMMIT); what is
   * acknowledged while the read runs is left for the next check.
   */
  snapshot(path: IngestPath): Map<number, AckedRecord[]> {
    return new Map([...this.acked(path)].map(([seq, acks]) => [seq, [...acks]]));
  }

  resetFigures(): AckFigures {
    const figures = this.figures;
    this.figures = { ackedBatches: 0, ackedRecords: 0, duplicates: 0, failedRequests: 0 };
    return figures;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const path = req.url as IngestPath;
    const upstream = this.upstream;
    if (!upstream || !(path in ITEMS)) {
      this.figures.failedRequests++;
      res.writeHead(upstream ? 404 : 502).end();
      return;
    }
    const items = (JSON.parse(body) as Record<string, Record<string, unknown>[]>)[ITEMS[path]] ?? [];
    const forwarded = this.forwarded.get(path) ?? [];
    this.forwarded.set(path, forwarded);
    for (const item of items) forwarded.push(item);
    const headers: Record<string, string> = {};
    for (const name of ["authorization", "content-type", "idempotency-key"])
      if (typeof req.headers[name] === "string") headers[name] = req.headers[name];
    let status: number;
    let answer: string;
    try {
      const response = await fetch(`${upstream}${path}`, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(30_000),
      });
      status = response.status;
      answer = await response.text();
    } catch {
      this.figures.failedRequests++;
      res.writeHead(502).end();
      return;
    }
    if (status === 200) this.record(path, headers["idempotency-key"] ?? "", items, answer);
    else this.figures.failedRequests++;
    res.writeHead(status, { "content-type": "application/json" }).end(answer);
  }

  private record(path: IngestPath, key: string, items: Record<string, unknown>[], answer: string): void {
    const m = /:(\d+)-(\d+)$/.exec(key);
    const first = m ? Number(m[1]) : Number.NaN;
    if (!m || Number(m[2]) - first + 1 !== items.length) {
      this.malformedKeys.push(key);
      return;
    }
    const acked = this.acked(path);
    items.forEach((value, i) => {
      const seq = first + i;
      const earlier = acked.get(seq);
      if (earlier) earlier.push({ seq, value });
      else acked.set(seq, [{ seq, value }]);
    });
    const { duplicates } = JSON.parse(answer) as { duplicates?: number };
    this.figures.ackedBatches++;
    this.figures.ackedRecords += items.length;
    this.figures.duplicates += duplicates ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
