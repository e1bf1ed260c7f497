import { type Static, Type } from "@sinclair/typebox";
import { Timestamp } from "../common.js";

/** Requested against used, for one group of ended jobs. */
export const WasteRow = Type.Object(
  {
    key: Type.String({ description: "The user, account or partition." }),
    jobs: Type.Integer({ minimum: 0, description: "Ended jobs in the group." }),
    memoryRequestedByteSeconds: Type.Number({ minimum: 0, description: "Σ requested memory × run time." }),
    memoryUsedByteSeconds: Type.Number({ minimum: 0, description: "Σ peak memory × run time." }),
    coreSecondsRequested: Type.Number({ minimum: 0, description: "Σ requested cores × run time." }),
    coreSecondsUsed: Type.Number({ minimum: 0, description: "Σ CPU time." }),
    gpuSecondsRequested: Type.Number({ minimum: 0, description: "Σ requested GPUs × run time." }),
    gpuSecondsUsed: Type.Number({ minimum: 0, description: "Σ GPUs that did work × run time." }),
    walltimeRequestedSeconds: Type.Number({ minimum: 0, description: "Σ requested walltime." }),
    walltimeUsedSeconds: Type.Number({ minimum: 0, description: "Σ run time." }),
  },
  { additionalProperties: false, description: "Requested against used, for one group." },
);
export type WasteRow = Static<typeof WasteRow>;

/** Requested against used resources of ended jobs, grouped by user, account or partition. */
export const WasteReport = Type.Object(
  {
    generatedAt: Timestamp,
    by: Type.Union([Type.Literal("user"), Type.Literal("account"), Type.Literal("partition")]),
    rows: Type.Array(WasteRow, { description: "Largest memory waste first." }),
  },
  { $id: "WasteReport", additionalProperties: false, description: "Requested against used resources." },
);
export type WasteReport = Static<typeof WasteReport>;
