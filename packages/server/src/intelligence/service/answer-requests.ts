import type { Prediction, PredictionRequest } from "@jobsight/schemas";
import { makePredictions, type PredictionContext } from "./make-predictions.js";
import type { PredictionRecorder } from "./prediction-recorder.js";

/**
 * Answers a batch of prediction requests in order: a request whose idempotency key the same user
 * already used on the same cluster gets the first answer again (a key repeated inside the batch
 * too); every other request is predicted and recorded.
 *
 * @example
 * ```ts
 * const [prediction] = await answerRequests([{ spec, idempotencyKey: "portal-42" }], recorder, context);
 * ```
 */
export async function answerRequests(
  requests: readonly PredictionRequest[],
  recorder: PredictionRecorder,
  context: PredictionContext,
): Promise<Prediction[]> {
  const keyed = requests.flatMap((r, i) => (r.idempotencyKey ? [i] : []));
  const found = await recorder.findIdempotent(
    keyed.map((i) => ({
      cluster: requests[i].spec.cluster,
      user: requests[i].spec.user,
      key: requests[i].idempotencyKey as string,
    })),
  );
  const answers: (Prediction | undefined)[] = requests.map(() => undefined);
  keyed.forEach((i, k) => {
    answers[i] = found[k];
  });
  const firstOfKey = new Map<string, number>();
  const repeats = new Map<number, number>();
  for (const i of keyed) {
    if (answers[i] !== undefined) continue;
    const r = requests[i];
    const key = `${r.spec.cluster}\u0000${r.spec.user}\u0000${r.idempotencyKey}`;
    const first = firstOfKey.get(key);
    if (first === undefined) firstOfKey.set(key, i);
    else repeats.set(i, first);
  }
  const todo = requests.flatMap((_, i) => (answers[i] === undefined && !repeats.has(i) ? [i] : []));
  if (todo.length > 0) {
    const recorded = await makePredictions(
      todo.map((i) => requests[i]),
      context,
    );
    recorder.record(recorded);
    todo.forEach((i, k) => {
      answers[i] = recorded[k].answer;
    });
  }
  for (const [i, first] of repeats) answers[i] = answers[first];
  return answers as Prediction[];
}
