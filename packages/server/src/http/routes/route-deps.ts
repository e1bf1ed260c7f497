import type { IngestGate } from "../../data-plane/ingest-gate.js";
import type { ObjectStore } from "../../data-plane/objects/object-store.js";
import type { DataPlaneStorage } from "../../data-plane/storage/storage.js";
import type { HoldJudge } from "../../intelligence/alerts/actions/submission-hold.js";
import type { LicenceStatus } from "../../platform/licence/licence.js";

/** What the data-plane routes work with. */
export type RouteDeps = {
  storage: DataPlaneStorage;
  objectStore: ObjectStore;
  ingestGate: IngestGate;
  /** Server version, reported by health. */
  version: string;
  /** The licence's state now, reported by health; absent: not reported. @default undefined */
  licence?: () => LicenceStatus;
  /** Holds a repeat offender's submission (`alerts.actions.holdRepeatOffenders`). @default undefined (never) */
  holdSubmission?: HoldJudge;
};
