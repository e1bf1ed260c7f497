import type { ModelChange, ModelStatus } from "@jobsight/schemas";
import type { RequestOptions, Transport } from "../http/transport.js";

/** The site's trained models: which one is in service, and changing it. */
export class ModelsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * The registry (platform and admin roles): the version in service, the one the answering server
   * predicts with, and the latest versions with their backtest and training decision.
   *
   * @example
   * ```ts
   * const { activeVersion, models } = await client.models.status();
   * ```
   */
  status(options?: RequestOptions): Promise<ModelStatus> {
    return this.transport.request<ModelStatus>({ operationId: "getModelStatus", options });
  }

  /**
   * Put a trained version into service (site-wide admin role); the one in service is retired, so
   * {@link rollback} goes back to it. A version the server cannot load is refused with
   * `ConflictError` (`apiCode` `MODEL_NOT_SERVABLE`) and nothing changes; an unknown one throws
   * `NotFoundError`.
   *
   * @example
   * ```ts
   * const change = await client.models.promote("m-2");
   * console.log(`${change.previousVersion} → ${change.activeVersion}`);
   * ```
   */
  promote(version: string, options?: RequestOptions): Promise<ModelChange> {
    return this.transport.request<ModelChange>({ operationId: "promoteModel", params: { version }, options });
  }

  /**
   * Put the previously active version back into service (site-wide admin role); the current one
   * is marked `rolled_back`. With nothing to go back to, throws `ConflictError` (`apiCode`
   * `NO_EARLIER_MODEL`).
   *
   * @example
   * ```ts
   * const { activeVersion } = await client.models.rollback();
   * ```
   */
  rollback(options?: RequestOptions): Promise<ModelChange> {
    return this.transport.request<ModelChange>({ operationId: "rollbackModel", options });
  }
}
