import type { Prediction, PredictionRequest } from "@jobsight/schemas";
import type { PredictionRecorder } from "../recording/prediction-recorder.js";
import { rememberTail } from "./answer-json.js";
import {
  answersAndRecords,
  type DistinctJobOutcomes,
  type PredictionContext,
  type PredictionMemo,
  predictDistinctJobs,
} from "./make-predictions.js";

/**
 * Requests answered together: each slice's answers and records are made, recorded and handed on
 * before the next, so their objects die young (see docs/performance.md).
 */
const SLICE = 128;

/**
 * Requests whose distinct jobs are predicted together, in one model run (cheaper per job than a
 * slice's run); only the jobs' outcomes are kept that long, answers are still made per slice.
 */
// A multiple of SLICE: a window starts with a slice.
const WINDOW = 8 * SLICE;

/**
 * Answers a batch of prediction requests, handing each answer to `each` in request order, a
 * slice at a time, with the JSON of the answer after its id when it was made here (see
 * `answer-json.ts`): a request whose idempotency key the same user already used on the same
 * cluster gets the first answer again (a key repeated inside the batch too), also when another
 * replica gave it; every other request is predicted and recorded (keyed ones written before they
 * are handed on).
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
  // Requests for the same job in different windows are predicted once.
  const memo: PredictionMemo = new Map();
  // The window's requests to predict: their indexes, the requests, and their plan.
  let todo: number[] = [];
  let todoRequests: PredictionRequest[] = [];
  let plan: DistinctJobOutcomes | undefined;
  // Where the slice's first request to predict is in `todo`.
  let next = 0;
  for (let start = 0; start < requests.length; start += SLICE) {
    // The event loop gets a turn between slices, so the prediction log's COPY, other requests and
    // health checks do not wait for the whole batch.
    if (start > 0) await nextTurn();
    if (start % WINDOW === 0) {
      const windowEnd = Math.min(requests.length, start + WINDOW);
      todo = [];
      for (let i = start; i < windowEnd; i++) if (answers[i] === undefined && !repeats.has(i)) todo.push(i);
      todoRequests = todo.map((i) => requests[i]);
      plan = todo.length > 0 ? await predictDistinctJobs(todoRequests, context, memo) : undefined;
      next = 0;
    }
    const end = Math.min(requests.length, start + SLICE);
    let last = next;
    while (last < todo.length && todo[last] < end) last++;
    if (plan && last > next) {
      const recorded = answersAndRecords(todoRequests, plan, context, next, last);
      recorder.record(recorded);
      // Keyed answers are written before they are given (a retry may reach another replica),
      // and a key another replica answered first gets that answer.
      const standing = recorded.some((r) => r.idempotencyKey !== undefined)
        ? await recorder.settle(recorded)
        : [];
      for (let k = next; k < last; k++) {
        const other = standing[k - next];
        answers[todo[k]] = other ?? recorded[k - next].answer;
        tails[todo[k]] = other ? undefined : recorded[k - next].answerTail;
      }
    }
    next = last;
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

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
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
