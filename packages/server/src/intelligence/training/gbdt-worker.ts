import { type MessagePort, workerData } from "node:worker_threads";
import type { TreeEnsemble } from "../model/tree-ensemble.js";
import { FeatureBins, type FeatureBinsParts } from "./feature-bins.js";
import { type QuantileGbdtOptions, trainQuantileGbdt } from "./quantile-gbdt.js";

/** What {@link trainEnsembles} hands the ensemble worker: its data, options and answer channel. */
export type GbdtWorkerData = {
  y: Float64Array;
  censored: Uint8Array;
  featureNames: string[];
  bins: FeatureBinsParts;
  options: QuantileGbdtOptions;
  /** Where the answer goes; read with `receiveMessageOnPort` by a thread that cannot yield. */
  port: MessagePort;
  /** Set to 1, and notified, once the answer is on the port. */
  done: Int32Array;
};

/** The worker's answer: the ensemble, or why it could not train one. */
export type GbdtWorkerAnswer = { ensemble: TreeEnsemble } | { error: string };

// The worker's entry: trains one ensemble and answers once. The flag lets a parent that is busy
// training the other ensemble (and cannot run its event loop) wait for the answer synchronously.
const data = workerData as GbdtWorkerData | undefined;
if (data?.port) {
  let answer: GbdtWorkerAnswer;
  try {
    const { y, censored, featureNames, options } = data;
    answer = {
      ensemble: trainQuantileGbdt(
        { y, censored, featureNames, bins: FeatureBins.fromParts(data.bins) },
        options,
      ),
    };
  } catch (error) {
    answer = { error: (error as Error)?.stack ?? String(error) };
  }
  data.port.postMessage(answer);
  data.port.close();
  Atomics.store(data.done, 0, 1);
  Atomics.notify(data.done, 0);
}
