import type { ObjectStore } from "../data-plane/objects/object-store.js";
import type { DataPlaneStorage } from "../data-plane/storage.js";
import type { IngestGate } from "./ingest-gate.js";

/** What the data-plane routes work with. */
export type RouteDeps = {
  storage: DataPlaneStorage;
  objectStore: ObjectStore;
  ingestGate: IngestGate;
  /** Server version, reported by health. */
  version: string;
};
