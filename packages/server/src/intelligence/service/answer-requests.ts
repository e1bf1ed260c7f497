import type { Prediction, PredictionRequest } from "@jobsight/schemas";
import { rememberTail } from "./answer-json.js";
import { makePredictions, type PredictionContext, type PredictionMemo } from "./make-predictions.js";
import type { PredictionRecorder } from "./prediction-recorder.js";

/**
 * Requests predicted together. A large batch is made a slice at a time, each slice recorded and
 * handed on before the next: made whole, the thousands of objects of a batch outlived the young
 * generation's collections and were copied into the old one, most of a batch's garbage
 * collection work; a slice's die young. A model run per slice costs a few microseconds.
 */
const SLICE = 128;

/**
 * Answers a batch of prediction requests, handing each answer to `each` in request order, a
 * slice at a time, with the JSON of the answer after its id when it was made here (see
 * `answer-json.ts`): a request whose idempotency key the same user already used on the same
 * cluster gets the first answer again (a key repeated inside the batch too); every other request
 * is predicted and recorded.
 *
 * @example
 * ```ts
 * const answers: Prediction[] = [];
 * await answerEach([{ spec, idempotencyKey: "portal-42" }], recorder, context, (a) => answers.push(a));
 * ```
 */
export async function answerEach(
  requests: readonly PredictionRequest[],
  recorder: PredictionRecorder,
  context: PredictionContext,
  each: (answer: Prediction, tail: Uint8Array | undefined) => void,
): Promise<void> {
  const keyed = requests.flatMap((r, i) => (r.idempotencyKey ? [i] : []));
  const found = await recorder.findIdempotent(
    keyed.map((i) => ({
      cluster: requests[i].spec.cluster,
      user: requests[i].spec.user,
      key: requests[i].idempotencyKey as string,
    })),
  );
  const answers: (Prediction | undefined)[] = new Array(requests.length);
  const tails: (Uint8Array | undefined)[] = new Array(requests.length);
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
  // The first answer of a key repeated later is kept until the batch ends; others are let go.
  const kept = new Set(repeats.values());
  // Requests for the same job in different slices are predicted once.
  const memo: PredictionMemo = new Map();
  for (let start = 0; start < requests.length; start += SLICE) {
    const end = Math.min(requests.length, start + SLICE);
    const todo: number[] = [];
    for (let i = start; i < end; i++) if (answers[i] === undefined && !repeats.has(i)) todo.push(i);
    if (todo.length > 0) {
      const recorded = await makePredictions(
        todo.map((i) => requests[i]),
        context,
        memo,
      );
      recorder.record(recorded);
      for (let k = 0; k < todo.length; k++) {
        answers[todo[k]] = recorded[k].answer;
        tails[todo[k]] = recorded[k].answerTail;
      }
    }
    for (let i = start; i < end; i++) {
      const at = repeats.get(i) ?? i;
      each(answers[at] as Prediction, tails[at]);
      if (!kept.has(i)) {
        answers[i] = undefined;
        tails[i] = undefined;
      }
    }
  }
}

/**
 * {@link answerEach}, the answers gathered in request order.
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
  const answers: Prediction[] = [];
  await answerEach(requests, recorder, context, (answer, tail) => {
    // Sent one by one by callers that only get the answer: its text goes with it.
    if (tail) rememberTail(answer, tail);
    answers.push(answer);
  });
  return answers;
}
