import { MessageChannel, receiveMessageOnPort, type Worker } from "node:worker_threads";
import { startModuleWorker } from "../../platform/workers/start-module-worker.js";
import type { TreeEnsemble } from "../model/tree-ensemble.js";
import type { FeatureBins } from "./feature-bins.js";
import type { GbdtWorkerAnswer, GbdtWorkerData } from "./gbdt-worker.js";
import { type QuantileGbdtOptions, trainQuantileGbdt } from "./quantile-gbdt.js";
import { TRAINING_THREAD_LIMITS } from "./training-heap.js";

/** Options of {@link trainEnsembles}. */
export type TrainEnsemblesOptions = {
  /**
   * Fewest training rows at which the second ensemble trains on a worker thread beside the first;
   * below it (or with `Infinity`) both train one after the other on the calling thread. The models
   * are the same either way.
   * @default 20000
   */
  parallelFromRows?: number;
  /** Told where the second ensemble trained: `worker` or `inline` (logs, tests). @default none */
  onPlace?: (place: "worker" | "inline") => void;
};

/** The binned training data both ensembles share. */
export type EnsembleData = {
  y: Float64Array;
  censored: Uint8Array;
  featureNames: string[];
  bins: FeatureBins;
};

// Once a worker failed to answer, later trainings of this process do not wait for one again.
let workerUnavailable = false;

/**
 * Trains two quantile ensembles on the same data: the first on the calling thread while the second
 * trains on a worker thread, which nearly halves the time on two cores. Synchronous: the caller
 * blocks until both are done. Without a worker (none can start, it failed, or the data is small)
 * the second trains on the calling thread too; every path gives identical ensembles.
 *
 * @example
 * ```ts
 * const [centre, upper] = trainEnsembles(data, [{ quantile: 0.5 }, { quantile: 0.9, seed: 2 }]);
 * ```
 */
export function trainEnsembles(
  data: EnsembleData,
  [first, second]: [QuantileGbdtOptions, QuantileGbdtOptions],
  options: TrainEnsemblesOptions = {},
): [TreeEnsemble, TreeEnsemble] {
  const parallel = !workerUnavailable && data.y.length >= (options.parallelFromRows ?? 20_000);
  const helper = parallel ? startHelper(data, second) : undefined;
  const started = performance.now();
  const a = trainQuantileGbdt(data, first);
  // Generous, so that a slow but live worker is waited for; a dead one costs this once per process.
  const limitMs = Math.max(60_000, 5 * (performance.now() - started));
  const b = helper?.take(limitMs);
  options.onPlace?.(b ? "worker" : "inline");
  return [a, b ?? trainQuantileGbdt(data, second)];
}

type Helper = { take(limitMs: number): TreeEnsemble | undefined };

function startHelper(data: EnsembleData, options: QuantileGbdtOptions): Helper | undefined {
  const { port1, port2 } = new MessageChannel();
  const done = new Int32Array(new SharedArrayBuffer(4));
  const workerData: GbdtWorkerData = {
    y: data.y,
    censored: data.censored,
    featureNames: data.featureNames,
    bins: data.bins.parts(),
    options,
    port: port2,
    done,
  };
  let worker: Worker | undefined;
  try {
    worker = startModuleWorker("gbdt-worker", import.meta.url, {
      workerData,
      transferList: [port2],
      resourceLimits: TRAINING_THREAD_LIMITS,
    });
  } catch {
    worker = undefined;
  }
  if (!worker) {
    workerUnavailable = true;
    port1.close();
    return undefined;
  }
  worker.unref();
  // An error event would otherwise be unhandled; the answer (or its absence) is what counts.
  worker.on("error", () => {});
  const started = worker;
  return {
    take(limitMs) {
      const outcome = Atomics.wait(done, 0, 0, limitMs);
      const message = receiveMessageOnPort(port1)?.message as GbdtWorkerAnswer | undefined;
      port1.close();
      void started.terminate();
      if (outcome === "timed-out" || !message || "error" in message) {
        workerUnavailable = true;
        return undefined;
      }
      return message.ensemble;
    },
  };
}
