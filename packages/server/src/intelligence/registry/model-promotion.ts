import { ModelNotServableError, NoEarlierModelError, NotFoundError } from "../../errors.js";
import type { ActiveModel } from "./active-model.js";
import type { ModelRegistry } from "./model-registry.js";
import { ServedModel } from "./served-model.js";

/** Which version was in service before a change, and which is now. */
export type ModelSwitch = { previous: string | undefined; active: string };

type Registry = Pick<ModelRegistry, "active" | "get" | "promote" | "rollback" | "manifest" | "bytes">;

/** Loads a model's files the way serving does, then frees them: refuses what could not be served. */
async function assertServable(registry: Registry, version: string, manifestSha256: string): Promise<void> {
  let served: ServedModel | undefined;
  try {
    const manifest = await registry.manifest(manifestSha256);
    served = await ServedModel.load(manifest, (sha) => registry.bytes(sha));
  } catch (error) {
    throw new ModelNotServableError(version, error instanceof Error ? error.message : String(error), error);
  } finally {
    await served?.close();
  }
}

/**
 * Puts a trained version into service, whatever its status (a rejected or rolled-back one too):
 * its files are loaded first, so a version this server cannot serve is refused and nothing
 * changes; the version in service is retired, so a rollback goes back to it.
 *
 * @throws {NotFoundError} when no model has this version; {@link ModelNotServableError} when its
 * files are missing or it reads other features than this server computes.
 *
 * @example
 * ```ts
 * const { previous, active } = await promoteModel(registry, model, "m-2");
 * ```
 */
export async function promoteModel(
  registry: Registry,
  model: ActiveModel,
  version: string,
): Promise<ModelSwitch> {
  const record = await registry.get(version);
  if (!record) throw new NotFoundError(`Model ${version} not found`);
  if (record.status !== "active") await assertServable(registry, version, record.manifestSha256);
  const promoted = await registry.promote(version);
  if (!promoted) throw new NotFoundError(`Model ${version} not found`);
  await model.serve();
  return { previous: promoted.previous, active: version };
}

/**
 * Puts the previously active version back into service (the current one is marked
 * `rolled_back`). When the earlier version cannot be served, the current one is put back and
 * {@link ModelNotServableError} thrown.
 *
 * @throws {NoEarlierModelError} when there is nothing to go back to.
 *
 * @example
 * ```ts
 * const { previous, active } = await rollbackModel(registry, model);
 * ```
 */
export async function rollbackModel(registry: Registry, model: ActiveModel): Promise<ModelSwitch> {
  const before = (await registry.active())?.version;
  const back = await registry.rollback();
  if (!back) throw new NoEarlierModelError(before);
  try {
    await model.serve();
  } catch (error) {
    if (before) await registry.promote(before);
    throw new ModelNotServableError(back, error instanceof Error ? error.message : String(error), error);
  }
  return { previous: before, active: back };
}
