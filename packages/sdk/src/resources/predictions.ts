import type { Prediction, PredictionBatch, PredictionRequest } from "@jobsight/schemas";
import { newIdempotencyKey } from "../http/idempotency-key.js";
import type { RequestOptions, Transport } from "../http/transport.js";

/** Predictions of what jobs about to be submitted will need. */
export class PredictionsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Predict one job's resources. A request without an `idempotencyKey` gets one, so the call is
   * safe to retry: the server records the prediction once however often it is resent.
   *
   * @example
   * ```ts
   * const p = await client.predictions.create({
   *   spec: { cluster: "hpc1", scheduler: "slurm", user: "alice", requested: { memoryBytes: 64 * 2 ** 30 } },
   * });
   * ```
   */
  create(request: PredictionRequest, options?: RequestOptions): Promise<Prediction> {
    const body = { ...request, idempotencyKey: request.idempotencyKey ?? newIdempotencyKey() };
    return this.transport.request<Prediction>({
      operationId: "createPrediction",
      body,
      idempotencyKey: body.idempotencyKey,
      options,
    });
  }

  /**
   * Predict many jobs in one call; the answer keeps the order of the requests.
   *
   * @example
   * ```ts
   * const { predictions } = await client.predictions.createBatch([{ spec: a }, { spec: b }]);
   * ```
   */
  createBatch(requests: PredictionRequest[], options?: RequestOptions): Promise<PredictionBatch> {
    const keyed = requests.map((r) => ({ ...r, idempotencyKey: r.idempotencyKey ?? newIdempotencyKey() }));
    return this.transport.request<PredictionBatch>({
      operationId: "createPredictionBatch",
      body: { requests: keyed },
      idempotencyKey: newIdempotencyKey(),
      options,
    });
  }

  /**
   * A recorded prediction by id.
   *
   * @example
   * ```ts
   * const again = await client.predictions.get(p.id);
   * ```
   */
  get(id: string, options?: RequestOptions): Promise<Prediction> {
    return this.transport.request<Prediction>({ operationId: "getPrediction", params: { id }, options });
  }
}
