import type { ResourceName } from "@jobsight/schemas";
import type { ObjectStore } from "../../data-plane/objects/object-store.js";
import { readAll } from "../../data-plane/objects/object-store.js";
import type { SqlPool } from "../../data-plane/storage/database.js";
import { ModelStore, type StoredModel } from "../../data-plane/stores/model-store.js";
import type { ModelDecision } from "../accuracy/compare-backtests.js";
import {
  type BacktestFigures,
  decodeManifest,
  encodeManifest,
  type ModelManifest,
} from "./model-manifest.js";

/** A row of the `models` table, with the intelligence plane's figures and decision. */
export type ModelRecord = StoredModel<Partial<Record<ResourceName, BacktestFigures>>, ModelDecision>;

/** A stored file of a model. */
export type ModelFile = { sha256: string; sizeBytes: number; contentType: string };

/**
 * Versioned models: the files (a manifest and one ONNX model per resource) in the
 * content-addressed object store, and a row per version in the data plane's `models` table
 * ({@link ModelStore}) with its training data range, backtest figures, the decision taken on it,
 * and which one is active (at most one).
 *
 * @example
 * ```ts
 * const registry = new ModelRegistry(pool, objectStore);
 * const active = await registry.active();
 * const manifest = active && (await registry.manifest(active.manifestSha256));
 * ```
 */
export class ModelRegistry {
  readonly #rows: ModelStore<ModelRecord["backtest"], ModelDecision>;

  constructor(
    pool: SqlPool,
    private readonly objects: ObjectStore,
  ) {
    this.#rows = new ModelStore(pool);
  }

  /** Stores the files of a model: each resource's ONNX model, then the manifest (listed last). */
  async storeFiles(
    manifest: ModelManifest,
    onnx: Partial<Record<ResourceName, Uint8Array>>,
  ): Promise<ModelFile[]> {
    const files: ModelFile[] = [];
    for (const bytes of Object.values(onnx) as Uint8Array[]) {
      const stored = await this.objects.put(bytes);
      files.push({ sha256: stored.sha256, sizeBytes: stored.sizeBytes, contentType: "application/onnx" });
    }
    const stored = await this.objects.put(encodeManifest(manifest));
    files.push({ sha256: stored.sha256, sizeBytes: stored.sizeBytes, contentType: "application/json" });
    return files;
  }

  /**
   * Records a trained model; when `activate`, it becomes the active one and the previous active
   * model is retired, in one transaction.
   */
  record(model: Omit<ModelRecord, "createdAt" | "activatedAt" | "status">, activate: boolean): Promise<void> {
    return this.#rows.record(model, activate);
  }

  /** The active model's row, if any. */
  active(): Promise<ModelRecord | undefined> {
    return this.#rows.active();
  }

  /** Every model, newest first. */
  list(limit = 100): Promise<ModelRecord[]> {
    return this.#rows.list(limit);
  }

  /** One model's row, or `undefined`. */
  get(version: string): Promise<ModelRecord | undefined> {
    return this.#rows.get(version);
  }

  /**
   * Puts `version` into service; the active one is retired. Returns the version active before,
   * or `undefined` when there is no such version.
   */
  promote(version: string): Promise<{ previous: string | undefined } | undefined> {
    return this.#rows.promote(version);
  }

  /**
   * Puts the model that was active before the current one back into service; the current one is
   * marked `rolled_back`. Returns the version now active, or `undefined` when there is nothing to
   * go back to.
   */
  rollback(): Promise<string | undefined> {
    return this.#rows.rollback();
  }

  /** A stored manifest. */
  async manifest(sha256: string): Promise<ModelManifest> {
    return decodeManifest(await this.bytes(sha256));
  }

  /** A stored model file. */
  async bytes(sha256: string): Promise<Buffer> {
    const stream = await this.objects.get(sha256);
    if (!stream) throw new ModelFileMissingError(sha256);
    return readAll(stream);
  }
}

/** A model's file is not in the object store (deleted, or another store configured). */
export class ModelFileMissingError extends Error {
  readonly code = "MODEL_FILE_MISSING";
  constructor(sha256: string) {
    super(`model file ${sha256} is not in the object store`);
    this.name = "ModelFileMissingError";
  }
}
