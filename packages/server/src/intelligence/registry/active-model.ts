import type { ServiceLogger } from "../service-options.js";
import type { ModelRegistry } from "./model-registry.js";
import { IncompatibleModelError, ServedModel } from "./served-model.js";

/** Options of {@link ActiveModel}. */
export type ActiveModelOptions = {
  /** Where the load failure of the active model at start is logged. */
  log: ServiceLogger;
  /**
   * Called when the registry's active model reads other features than this server computes (it
   * was trained by another version), so the host can train a compatible one. Not called again
   * for the same version.
   */
  onIncompatible: () => void;
  /** How long a replaced model stays open for predictions that had already picked it. @default 30000 */
  retireGraceMs?: number;
};

/**
 * The model a server predicts with: the registry's active model, loaded into ONNX Runtime, and
 * replaced when another one becomes active (trained here, by another server, or by a rollback).
 * A version that fails to load is remembered and not tried again on every refresh.
 *
 * @example
 * ```ts
 * const model = new ActiveModel(registry, { log, onIncompatible: () => void retrain() });
 * await model.loadOnce();
 * model.served?.version;
 * await model.refresh(); // picks up a model another server put into service
 * await model.close();
 * ```
 */
export class ActiveModel {
  readonly #registry: Pick<ModelRegistry, "active" | "manifest" | "bytes">;
  readonly #o: ActiveModelOptions;
  readonly #unservable = new Set<string>();
  #served: ServedModel | undefined;
  #loaded: Promise<void> | undefined;
  /** The load in progress: loads run one after the other, so a model is never loaded twice at once. */
  #turn: Promise<void> = Promise.resolve();

  constructor(registry: Pick<ModelRegistry, "active" | "manifest" | "bytes">, options: ActiveModelOptions) {
    this.#registry = registry;
    this.#o = options;
  }

  /** The model in service, or undefined (none trained yet, or it could not be loaded). */
  get served(): ServedModel | undefined {
    return this.#served;
  }

  /**
   * Loads the active model the first time it is called; later calls return the same promise. A
   * failure is logged, not thrown: predictions say `no_model` until a model is trained.
   */
  loadOnce(): Promise<void> {
    this.#loaded ??= this.serve().catch((error) => {
      this.#o.log.error(
        { err: error },
        "the active model could not be loaded; predictions say no_model until one is trained",
      );
    });
    return this.#loaded;
  }

  /** Puts the registry's active model into service unless it already is; throws when it cannot be loaded. */
  serve(): Promise<void> {
    return this.#inTurn(() => this.#serve());
  }

  /** Serves the registry's active model when it changed and did not fail to load before. */
  refresh(): Promise<void> {
    return this.#inTurn(async () => {
      const active = await this.#registry.active();
      if (active && active.version !== this.#served?.version && !this.#unservable.has(active.version)) {
        await this.#serve();
      }
    });
  }

  #inTurn(work: () => Promise<void>): Promise<void> {
    const next = this.#turn.catch(() => {}).then(work);
    this.#turn = next;
    return next;
  }

  async #serve(): Promise<void> {
    const active = await this.#registry.active();
    if (!active) return;
    if (active.version === this.#served?.version) return;
    let next: ServedModel;
    try {
      const manifest = await this.#registry.manifest(active.manifestSha256);
      next = await ServedModel.load(manifest, (sha) => this.#registry.bytes(sha));
    } catch (error) {
      // Not tried again on every refresh; a model trained by this server replaces it.
      this.#unservable.add(active.version);
      if (error instanceof IncompatibleModelError) this.#o.onIncompatible();
      throw error;
    }
    const previous = this.#served;
    this.#served = next;
    if (previous) setTimeout(() => void previous.close(), this.#o.retireGraceMs ?? 30_000).unref();
  }

  /** Frees the model in service; a replaced one still in its grace period closes on its own. */
  async close(): Promise<void> {
    await this.#served?.close();
    this.#served = undefined;
  }
}
