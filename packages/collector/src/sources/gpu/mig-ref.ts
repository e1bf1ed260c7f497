import type { GpuUsage } from "../usage-parts.js";
import type { GpuIdentity } from "./nvidia-smi-csv.js";

/**
 * A MIG device as an allocation names it: by its MIG UUID (`MIG-<uuid>`, driver R470 and later),
 * by the older `MIG-GPU-<parent uuid>/<GPU instance>/<compute instance>` form (which names its
 * parent and GPU instance itself), or, on GKE, by `nvidia<minor>/gi<GPU instance>`.
 */
export type MigRef = {
  uuid?: string;
  parentUuid?: string;
  parentMinor?: number;
  gpuInstanceId?: number;
};

const MIG_UUID = /^MIG-[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;
const LEGACY_MIG_UUID = /^MIG-(GPU-[0-9A-Fa-f-]{4,})\/(\d{1,5})\/(\d{1,5})$/;
const GKE_MIG = /^nvidia(\d{1,3})\/gi(\d{1,5})$/;

/**
 * The MIG device an allocation's id names, or undefined for anything else.
 *
 * @example
 * ```ts
 * parseMigRef("MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"); // { uuid: "MIG-c6d4f1ef-…" }
 * parseMigRef("MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0");
 * // { uuid: "MIG-GPU-5c89…/7/0", parentUuid: "GPU-5c89…", gpuInstanceId: 7 }
 * parseMigRef("nvidia1/gi13", { gke: true }); // { parentMinor: 1, gpuInstanceId: 13 }
 * ```
 */
export function parseMigRef(id: string, options: { gke?: boolean } = {}): MigRef | undefined {
  if (MIG_UUID.test(id)) return { uuid: id };
  const legacy = LEGACY_MIG_UUID.exec(id);
  if (legacy) return { uuid: id, parentUuid: legacy[1], gpuInstanceId: Number(legacy[2]) };
  const gke = options.gke ? GKE_MIG.exec(id) : null;
  if (gke) return { parentMinor: Number(gke[1]), gpuInstanceId: Number(gke[2]) };
  return undefined;
}

/** The key two references to one MIG device share, to list it once. */
export function migRefKey(ref: MigRef): string {
  return ref.uuid ?? `${ref.parentUuid ?? `minor${ref.parentMinor}`}/gi${ref.gpuInstanceId}`;
}

/**
 * The reading of the MIG instance `ref` names among `instances` (readings with `mig` set): by
 * the instance's own MIG UUID when the source knows it (dcgm-exporter's, learnt from nvidia-smi),
 * else by parent GPU and GPU instance id, the parent found by UUID or, for a device minor,
 * through `known`. Never the whole GPU.
 *
 * @example
 * ```ts
 * findMigReading({ uuid: "MIG-c6d4…" }, dcgm.migDevices(), dcgm.known());
 * ```
 */
export function findMigReading(
  ref: MigRef,
  instances: readonly GpuUsage[],
  known: readonly GpuIdentity[],
): GpuUsage | undefined {
  if (ref.uuid) {
    const own = instances.find((g) => g.mig?.uuid === ref.uuid);
    if (own) return own;
  }
  const { parentUuid, gpuInstanceId: gi } = ref;
  if (gi === undefined) return undefined;
  if (parentUuid) return instances.find((g) => g.uuid === parentUuid && g.mig?.gpuInstanceId === gi);
  if (ref.parentMinor === undefined) return undefined;
  const parent = known.find((g) => g.minor === ref.parentMinor && !g.uuid?.startsWith("MIG-"));
  if (!parent) return undefined;
  return instances.find(
    (g) => g.mig?.gpuInstanceId === gi && (parent.uuid ? g.uuid === parent.uuid : g.index === parent.index),
  );
}
