import type { UsageSample } from "@jobsight/schemas";
import type { ScalarAttribute as AttrValue } from "./attribute-values.js";
import type { Section } from "./mapping-contract.js";
import { LegacySeriesAttributes as L, type MetricNameSet, SeriesAttributes as S } from "./metric-names.js";
import { type AttributeLookup, integerAttribute, stringAttribute } from "./point-attributes.js";

// Which device a GPU point is of, both ways: a whole GPU, or one MIG instance of a GPU. Instances
// of one GPU share its index, UUID and PCI address, so the GPU instance id tells them apart.

type Gpu = NonNullable<UsageSample["gpus"]>[number];

/** `hw.id` is required on `hw.*` metrics: a GPU that reports no UUID is named by its index. */
export const gpuIdOf = (index: number): string => `gpu${index}`;

/**
 * The series attributes naming `g` on its points. A MIG instance's `hw.id` is its MIG UUID when
 * known, else `<parent hw.id>/gi<id>`, so that every device of a node has an `hw.id` of its own;
 * `hw.parent` names the GPU it is carved from.
 */
export function gpuSeriesAttributes(g: Gpu, names: MetricNameSet | undefined): Array<[string, AttrValue]> {
  const attributes: Array<[string, AttrValue]> = [[S.gpuIndex, g.index]];
  const parent = g.uuid ?? gpuIdOf(g.index);
  if (names === "legacy") {
    if (g.uuid !== undefined) attributes.push([L.gpuUuid, g.uuid]);
  } else {
    const id = g.mig ? (g.mig.uuid ?? `${parent}/gi${g.mig.gpuInstanceId}`) : parent;
    attributes.push([S.gpuUuid, id], [S.gpuType, "gpu"]);
  }
  if (g.pciBusId !== undefined) attributes.push([S.gpuPciBusId, g.pciBusId]);
  if (g.mig) {
    if (names !== "legacy") attributes.push([S.gpuParent, parent]);
    attributes.push([S.migInstanceId, g.mig.gpuInstanceId]);
    if (g.mig.profile !== undefined) attributes.push([S.migProfile, g.mig.profile]);
  }
  return attributes;
}

/** The key of a point's device within its sample: the GPU index, or `<index>/gi<id>` for a MIG instance. */
export function gpuKeyOf(attributes: AttributeLookup, index: number): number | string {
  const instance = integerAttribute(attributes, S.migInstanceId);
  return instance === undefined ? index : `${index}/gi${instance}`;
}

/**
 * Write the identity a point carries into its device's section: the GPU's UUID and PCI address
 * (for a MIG instance, its parent's: `jobsight.gpu.uuid` of 0.1, else `hw.parent`) and the MIG
 * instance's id, profile and UUID (an `hw.id` of the `MIG-` form).
 */
export function applyGpuIdentity(gpu: Section, attributes: AttributeLookup, index: number): void {
  const pciBusId = stringAttribute(attributes, S.gpuPciBusId);
  if (pciBusId) gpu.pciBusId = pciBusId;
  const legacy = stringAttribute(attributes, L.gpuUuid);
  const id = stringAttribute(attributes, S.gpuUuid);
  const instance = integerAttribute(attributes, S.migInstanceId);
  if (instance === undefined) {
    const uuid = legacy ?? (id === gpuIdOf(index) ? undefined : id);
    if (uuid) gpu.uuid = uuid;
    return;
  }
  const parent = legacy ?? stringAttribute(attributes, S.gpuParent);
  if (parent && parent !== gpuIdOf(index)) gpu.uuid = parent;
  const mig: Section = { gpuInstanceId: instance };
  const profile = stringAttribute(attributes, S.migProfile);
  if (profile) mig.profile = profile;
  if (id?.startsWith("MIG-")) mig.uuid = id;
  gpu.mig = mig;
}
