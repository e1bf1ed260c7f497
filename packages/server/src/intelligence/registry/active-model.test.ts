import { describe, expect, it, vi } from "vitest";
import type { ResourceModel } from "../model/resource-model.js";
import { ActiveModel } from "./active-model.js";
import { MANIFEST_FORMAT, type ModelManifest } from "./model-manifest.js";
import type { ModelRecord } from "./model-registry.js";

// Manifests without resources load without ONNX Runtime; one whose model reads other features is
// refused before any file is read.
const manifest = (version: string, incompatible = false): ModelManifest => ({
  format: MANIFEST_FORMAT,
  version,
  createdAt: "2026-12-02T10:00:00.000Z",
  trainingDataRange: { start: "2026-01-01T00:00:00.000Z", end: "2026-12-01T00:00:00.000Z" },
  trainingJobs: 10,
  resources: incompatible
    ? { memory: { onnxSha256: "onnx", model: { featureNames: ["not-a-feature"] } as ResourceModel } }
    : {},
  skipped: {},
});

function fakeRegistry(manifests: Record<string, ModelManifest>) {
  let active: string | undefined;
  const registry = {
    active: vi.fn(async () =>
      active ? ({ version: active, manifestSha256: active } as ModelRecord) : undefined,
    ),
    manifest: vi.fn(async (sha: string) => manifests[sha]),
    bytes: vi.fn(async () => Buffer.alloc(0)),
  };
  const activate = (version: string) => {
    active = version;
  };
  return { registry, activate };
}

const log = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });

describe("ActiveModel", () => {
  it("loads the active model once and serves the next one a refresh finds", async () => {
    const { registry, activate } = fakeRegistry({ v1: manifest("v1"), v2: manifest("v2") });
    const model = new ActiveModel(registry, { log: log(), onIncompatible: vi.fn() });
    activate("v1");
    await model.loadOnce();
    await model.loadOnce();
    expect(model.served?.version).toBe("v1");
    expect(registry.active).toHaveBeenCalledTimes(1);
    await model.refresh();
    expect(registry.manifest).toHaveBeenCalledTimes(1);
    activate("v2");
    await model.refresh();
    expect(model.served?.version).toBe("v2");
    await model.close();
    expect(model.served).toBeUndefined();
  });

  it("logs an incompatible model instead of throwing, asks for a retrain, and does not retry it on refresh", async () => {
    const { registry, activate } = fakeRegistry({ old: manifest("old", true), v2: manifest("v2") });
    const onIncompatible = vi.fn();
    const logger = log();
    const model = new ActiveModel(registry, { log: logger, onIncompatible });
    activate("old");
    await model.loadOnce();
    expect(model.served).toBeUndefined();
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(onIncompatible).toHaveBeenCalledTimes(1);
    await model.refresh();
    expect(registry.manifest).toHaveBeenCalledTimes(1);
    expect(onIncompatible).toHaveBeenCalledTimes(1);
    activate("v2");
    await model.refresh();
    expect(model.served?.version).toBe("v2");
  });

  it("throws from serve when the active model cannot be loaded", async () => {
    const { registry, activate } = fakeRegistry({ old: manifest("old", true) });
    const model = new ActiveModel(registry, { log: log(), onIncompatible: () => {} });
    activate("old");
    await expect(model.serve()).rejects.toMatchObject({ code: "MODEL_INCOMPATIBLE" });
  });
});
