import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { migPlaces, parseMigDeviceList, parseMigInstanceIds } from "./mig-places.js";
import { findMigReading, parseMigRef } from "./mig-ref.js";

const fixtures = join(import.meta.dirname, "fixtures");
const list = readFileSync(join(fixtures, "nvidia-smi-list-mig.txt"), "utf8");
const query = readFileSync(join(fixtures, "nvidia-smi-query-mig.xml"), "utf8");
const PARENT = "GPU-7099682b-a20d-2bcc-74ab-b9060454d81e";
const SMALL = "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f";
const LARGE = "MIG-2f0b7c5e-8d1a-5e3b-9c4d-6a7b8c9d0e1f";

describe("MIG UUIDs from nvidia-smi", () => {
  it("reads each GPU's MIG devices from -L, by device index", () => {
    const devices = parseMigDeviceList(list);
    expect([...devices.keys()]).toEqual(["GPU-34319582-d595-d1c7-d1d2-179bcfa61660", PARENT]);
    expect(devices.get(PARENT)).toEqual(
      new Map([
        [0, LARGE],
        [1, SMALL],
      ]),
    );
  });

  it("reads each MIG device's GPU instance id from -q -x, not the processes' ones", () => {
    const ids = parseMigInstanceIds(query);
    expect(ids.get("GPU-34319582-d595-d1c7-d1d2-179bcfa61660")).toEqual(new Map());
    expect(ids.get(PARENT)).toEqual(
      new Map([
        [0, 2],
        [1, 13],
      ]),
    );
  });

  it("joins the two into each MIG UUID's parent and GPU instance; a pre-R470 UUID names its own", () => {
    expect(migPlaces(list, query)).toEqual(
      new Map([
        [LARGE, { parentUuid: PARENT, gpuInstanceId: 2 }],
        [SMALL, { parentUuid: PARENT, gpuInstanceId: 13 }],
      ]),
    );
    // The NVIDIA GPU Operator's documentation shows this form from older drivers.
    const legacy = [
      "GPU 0: A100-SXM4-40GB (UUID: GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f)",
      "  MIG 1g.5gb Device 0: (UUID: MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0)",
    ].join("\n");
    expect(migPlaces(legacy, undefined)).toEqual(
      new Map([
        [
          "MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0",
          { parentUuid: "GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f", gpuInstanceId: 7 },
        ],
      ]),
    );
    // Without -q -x a current-form UUID has no known place.
    expect(migPlaces(list, undefined).size).toBe(0);
  });
});

describe("findMigReading", () => {
  const instance = (gpuInstanceId: number, uuid?: string) => ({
    index: 1,
    uuid: PARENT,
    utilizationPercent: 0,
    memoryUsedBytes: 0,
    mig: { gpuInstanceId, ...(uuid ? { uuid } : {}) },
  });
  const instances = [instance(2), instance(13, SMALL)];
  const known = [{ index: 1, uuid: PARENT, minor: 1 }];

  it("finds an instance by its MIG UUID, by parent and GPU instance, or by parent's device file", () => {
    expect(findMigReading(parseMigRef(SMALL)!, instances, known)).toBe(instances[1]);
    expect(findMigReading(parseMigRef(`MIG-${PARENT}/2/0`)!, instances, known)).toBe(instances[0]);
    expect(findMigReading(parseMigRef("nvidia1/gi2", { gke: true })!, instances, known)).toBe(instances[0]);
  });

  it("finds nothing for an instance it cannot place, rather than its whole GPU or a neighbour", () => {
    expect(findMigReading(parseMigRef(LARGE)!, instances, known)).toBeUndefined();
    expect(findMigReading(parseMigRef("nvidia1/gi9", { gke: true })!, instances, known)).toBeUndefined();
    expect(findMigReading(parseMigRef("nvidia0/gi2", { gke: true })!, instances, known)).toBeUndefined();
  });
});
