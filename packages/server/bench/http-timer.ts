import { Worker } from "node:worker_threads";

// The client runs on a thread of its own, as a portal or a scheduler plugin would run in a
// process of its own: its HTTP work does not take turns with the server on the event loop, and
// its clock measures what a caller waits. Plain JavaScript, evaluated, so it needs no loader.
const TIMER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const { origin, token } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
function post(path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(origin + path, { method: "POST", agent, headers: {
      authorization: "Bearer " + token, "content-type": "application/json", "content-length": body.length } },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          if (res.statusCode < 200 || res.statusCode > 299)
            reject(new Error("HTTP " + res.statusCode + " " + Buffer.concat(chunks).toString("utf8").slice(0, 500)));
          else resolve(Buffer.concat(chunks));
        });
        res.on("error", reject);
      });
    req.on("error", reject);
    req.end(body);
  });
}
parentPort.on("message", async ({ path, bodies, concurrency, check }) => {
  try {
    const times = new Float64Array(bodies.length);
    const buffers = bodies.map((b) => Buffer.from(b));
    let next = 0;
    let sample;
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < buffers.length) {
        const i = next++;
        const t0 = performance.now();
        const answer = await post(path, buffers[i]);
        times[i] = performance.now() - t0;
        if (check && i === 0) sample = answer.toString("utf8");
      }
    }));
    const totalMs = performance.now() - started;
    parentPort.postMessage({ ok: true, times, totalMs, sample });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error) });
  }
});
`;

/** What a run of requests took: each request's milliseconds (in order) and the whole run's. */
export type TimedRun = { times: Float64Array; totalMs: number; sample?: string };

/**
 * A thread that POSTs JSON bodies over keep-alive HTTP and times each answer. Every request must
 * answer 2xx, or the run fails.
 */
export class HttpTimer {
  readonly #worker: Worker;

  constructor(origin: string, token: string) {
    this.#worker = new Worker(TIMER, { eval: true, workerData: { origin, token } });
  }

  /** POSTs every body to `path`, `concurrency` at a time (1: one after another). */
  run(path: string, bodies: readonly string[], concurrency = 1, check = false): Promise<TimedRun> {
    return new Promise((resolve, reject) => {
      this.#worker.once(
        "message",
        (result: { ok: boolean; error?: string; times: Float64Array; totalMs: number; sample?: string }) =>
          result.ok ? resolve(result) : reject(new Error(result.error)),
      );
      this.#worker.postMessage({ path, bodies, concurrency, check });
    });
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
