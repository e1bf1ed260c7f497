import { Worker } from "node:worker_threads";

// The sender runs on a thread of its own, as a collector would run in a process of its own: its
// HTTP writes do not take turns with the receiver on the server's event loop. Plain JavaScript,
// evaluated, so it needs no TypeScript loader.
const SENDER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const { url, token, concurrency } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function post(body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: {
      authorization: "Bearer " + token, "content-type": "application/x-protobuf", "content-length": body.length } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const answer = Buffer.concat(chunks);
          // Full success is an empty ExportMetricsServiceResponse: anything else is a failure here.
          if (res.statusCode !== 200 || answer.length !== 0) reject(new Error("HTTP " + res.statusCode + " " + answer.toString("latin1")));
          else resolve();
        });
        res.on("error", reject);
      });
    req.on("error", reject);
    req.end(body);
  });
}
let bodies = [];
parentPort.on("message", async (message) => {
  if (message.load) {
    bodies = message.load;
    parentPort.postMessage({ ok: true });
    return;
  }
  try {
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) await post(Buffer.from(bodies[next++]));
    }));
    bodies = [];
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error) });
  }
});
`;

/** A thread that POSTs OTLP/HTTP protobuf bodies to the receiver, `concurrency` at a time. */
export class HttpSender {
  readonly #worker: Worker;

  constructor(url: string, token: string, concurrency: number) {
    this.#worker = new Worker(SENDER, { eval: true, workerData: { url, token, concurrency } });
  }

  #call(message: unknown, transfer: ArrayBuffer[] = []): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#worker.once("message", (result: { ok: boolean; error?: string }) =>
        result.ok ? resolve() : reject(new Error(result.error)),
      );
      this.#worker.postMessage(message, transfer);
    });
  }

  /** Moves the bodies to the thread (before the clock starts). */
  load(bodies: Uint8Array[]): Promise<void> {
    const buffers = bodies.map((b) => b.slice().buffer);
    return this.#call({ load: buffers }, buffers);
  }

  /** Sends the loaded bodies; resolves once each was answered with full success. */
  send(): Promise<void> {
    return this.#call({ send: true });
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}
