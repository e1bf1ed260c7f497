import {
  ATTR_CPU_MODE,
  ATTR_DISK_IO_DIRECTION,
  ATTR_HW_ID,
  ATTR_HW_NAME,
} from "@opentelemetry/semantic-conventions/incubating";
import { LegacySeriesAttributes as L, SeriesAttributes as S } from "../../mapping/metric-names.js";
import type { ApplyOutcome, SampleDraft } from "../../mapping/observation-mapping.js";
import type { AttributeLookup } from "../../mapping/point-attributes.js";
import { accept, type Kind } from "../../mapping/point-values.js";

// How a standard point lands in a sample draft. Unlike Jobsight's own metrics (one point per
// field), standard inputs come per process, per CPU, per device or per CPU mode: those are
// summed into the job's field. Where two inputs fill one field, the higher rank wins.

/** A point's value after unit conversion, and the attributes it came with. */
export type Apply = (draft: SampleDraft, value: number, attributes: AttributeLookup) => ApplyOutcome;

/** The outcome of a point that feeds no field (an idle CPU mode, a decoder's GPU share). */
export const NOT_APPLICABLE = { skip: "not_applicable" } as const;

type Group = "memory" | "cpu" | "io";
type Section = Record<string, unknown>;
const outcome = { memory: { section: "memory" }, cpu: { section: "cpu" }, io: { section: "io" } } as const;

// Which rank filled a field of a section; only standard inputs use ranks.
const ranks = new WeakMap<Section, Record<string, number>>();

/** The first of `keys` the point (or its scope or resource) has as a string. */
export function firstText(attributes: AttributeLookup, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = attributes.get(key);
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** Sets `group.field`; a field set by a higher `rank` stays. */
export function setField(name: string, group: Group, field: string, kind: Kind, rank = 0): Apply {
  return (draft, value) => {
    const accepted = accept(value, kind);
    if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
    draft[group] ??= {};
    const section = draft[group];
    let filled = ranks.get(section);
    if (!filled) {
      filled = {};
      ranks.set(section, filled);
    }
    if ((filled[field] ?? -1) > rank) return outcome[group];
    filled[field] = rank;
    section[field] = accepted;
    return outcome[group];
  };
}

/** Adds to `group.field` (processes of a job, CPUs of a node, devices of a container). */
export function addField(name: string, group: Group, field: string, kind: Kind): Apply {
  return (draft, value) => {
    const accepted = accept(value, kind);
    if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
    draft[group] ??= {};
    const section = draft[group];
    section[field] = ((section[field] as number | undefined) ?? 0) + accepted;
    return outcome[group];
  };
}

// `cpu.mode` in the conventions; the hostmetrics receiver still writes `state`.
const MODE_KEYS = [ATTR_CPU_MODE, "process.cpu.state", "system.cpu.state", "state"] as const;
const USER_MODES = new Set(["user", "nice"]);
const SYSTEM_MODES = new Set(["system", "irq", "softirq", "interrupt"]);

/**
 * CPU time by mode: user and system modes add to `usageSeconds` and to `userSeconds` or
 * `systemSeconds`; idle, wait and steal are not the job's use. A point without a mode is the
 * total, and sets `usageSeconds`.
 */
export function cpuTime(name: string): Apply {
  const total = setField(name, "cpu", "usageSeconds", "double");
  const usage = addField(name, "cpu", "usageSeconds", "double");
  const user = addField(name, "cpu", "userSeconds", "double");
  const system = addField(name, "cpu", "systemSeconds", "double");
  return (draft, value, attributes) => {
    const mode = firstText(attributes, MODE_KEYS);
    if (mode === undefined) return total(draft, value, attributes);
    const byMode = USER_MODES.has(mode) ? user : SYSTEM_MODES.has(mode) ? system : undefined;
    if (!byMode) return NOT_APPLICABLE;
    const done = byMode(draft, value, attributes);
    return "reject" in done ? done : usage(draft, value, attributes);
  };
}

const DIRECTION_KEYS = [ATTR_DISK_IO_DIRECTION, "direction"] as const;

/** Bytes by `disk.io.direction`, summed over devices and processes. */
export function diskIo(name: string): Apply {
  const read = addField(name, "io", "readBytes", "int");
  const write = addField(name, "io", "writeBytes", "int");
  return (draft, value, attributes) => {
    const direction = firstText(attributes, DIRECTION_KEYS);
    if (direction === "read") return read(draft, value, attributes);
    if (direction === "write") return write(draft, value, attributes);
    return { reject: `${name}: ${ATTR_DISK_IO_DIRECTION} must be read or write` };
  };
}

/** Only the `used` memory state is a job's use on a node it has alone. */
export function memoryState(apply: Apply): Apply {
  return (draft, value, attributes) =>
    firstText(attributes, ["system.memory.state", "state"]) === "used"
      ? apply(draft, value, attributes)
      : NOT_APPLICABLE;
}

// hw.id as GPU exporters write it: "0", "gpu0", "nvidia0"; a UUID names no index.
const INDEXED_ID = /^(?:gpu|nvidia|card)?(\d{1,4})$/i;
const GPU_UUID = /^GPU-[0-9a-f-]+$/i;

function gpuIndex(attributes: AttributeLookup): number | undefined {
  const own = attributes.get(S.gpuIndex);
  const n = typeof own === "string" && /^\d+$/.test(own) ? Number(own) : own;
  if (typeof n === "number" && Number.isSafeInteger(n) && n >= 0) return n;
  for (const key of [ATTR_HW_ID, ATTR_HW_NAME]) {
    const m = INDEXED_ID.exec(String(attributes.get(key) ?? ""));
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** A field of the GPU named by `jobsight.gpu.index`, or by an `hw.id`/`hw.name` that holds its index. */
export function gpuField(name: string, field: string, kind: Kind): Apply {
  return (draft, value, attributes) => {
    const index = gpuIndex(attributes);
    if (index === undefined) {
      return { reject: `${name}: needs ${S.gpuIndex}, or an ${ATTR_HW_ID} such as "0" or "nvidia0"` };
    }
    const accepted = accept(value, kind);
    if (typeof accepted === "string") return { reject: `${name}: ${accepted}` };
    draft.gpus ??= new Map();
    let gpu = draft.gpus.get(index);
    if (!gpu) {
      gpu = { index };
      draft.gpus.set(index, gpu);
    }
    gpu[field] = accepted;
    const uuid = firstText(attributes, [L.gpuUuid, ATTR_HW_ID]);
    if (uuid && GPU_UUID.test(uuid)) gpu.uuid = uuid;
    return { section: `gpu:${index}` };
  };
}
