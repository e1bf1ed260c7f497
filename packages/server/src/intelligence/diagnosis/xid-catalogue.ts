/**
 * Whom an NVIDIA Xid points at: the job's own GPU code ("application"), the node's GPU hardware,
 * firmware or driver ("hardware"), or neither because it only reports the clean-up after something
 * else ("follow-on").
 */
export type XidClass = "application" | "hardware" | "follow-on";

/** One Xid code as Jobsight reads it. */
export interface XidInfo {
  readonly code: number;
  readonly name: string;
  readonly class: XidClass;
  /** What it usually means for the job, in a sentence. */
  readonly meaning: string;
}

// From NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors) and its resolution buckets:
// RESTART_APP codes caused by the application's own work are "application"; codes whose
// resolution is a GPU reset, node reboot, drain or RMA are "hardware".
const CATALOGUE: readonly XidInfo[] = [
  {
    code: 13,
    name: "Graphics Engine Exception",
    class: "application",
    meaning:
      "a GPU kernel faulted (out-of-range address, illegal instruction), usually a bug in the job's GPU code",
  },
  {
    code: 31,
    name: "GPU memory page fault",
    class: "application",
    meaning: "a GPU kernel accessed memory it does not own (an illegal memory access)",
  },
  {
    code: 43,
    name: "GPU stopped processing",
    class: "application",
    meaning: "the driver stopped the job's GPU context after a fault the application caused",
  },
  {
    code: 69,
    name: "Graphics Engine class error",
    class: "application",
    meaning: "the application sent the GPU an invalid command",
  },
  {
    code: 45,
    name: "Preemptive cleanup, due to previous errors",
    class: "follow-on",
    meaning: "the driver tore down the GPU contexts of a process that ended or was killed",
  },
  { code: 48, name: "Double-bit ECC error", class: "hardware", meaning: "uncorrectable GPU memory error" },
  {
    code: 61,
    name: "Internal micro-controller breakpoint",
    class: "hardware",
    meaning: "GPU firmware fault",
  },
  { code: 62, name: "Internal micro-controller halt", class: "hardware", meaning: "GPU firmware halted" },
  {
    code: 63,
    name: "ECC page retirement or row remapping event",
    class: "hardware",
    meaning: "GPU memory needed a row remapped; the GPU needs a reset",
  },
  {
    code: 64,
    name: "ECC page retirement or row remapping failure",
    class: "hardware",
    meaning: "GPU memory could not be remapped; the GPU needs service",
  },
  { code: 74, name: "NVLink error", class: "hardware", meaning: "a fault on the NVLink between GPUs" },
  {
    code: 79,
    name: "GPU has fallen off the bus",
    class: "hardware",
    meaning: "the GPU stopped answering on PCIe",
  },
  { code: 92, name: "High single-bit ECC error rate", class: "hardware", meaning: "GPU memory is degrading" },
  {
    code: 94,
    name: "Contained ECC error",
    class: "hardware",
    meaning: "uncorrectable memory error, contained to the job",
  },
  {
    code: 95,
    name: "Uncontained ECC error",
    class: "hardware",
    meaning: "uncorrectable memory error affecting the whole GPU",
  },
  {
    code: 119,
    name: "GSP RPC timeout",
    class: "hardware",
    meaning: "the GPU's system processor stopped answering the driver",
  },
  {
    code: 120,
    name: "GSP error",
    class: "hardware",
    meaning: "the GPU's system processor reported an error",
  },
  { code: 121, name: "C2C link error", class: "hardware", meaning: "a fault on the chip-to-chip link" },
  { code: 140, name: "Unrecovered ECC error", class: "hardware", meaning: "uncorrectable GPU memory error" },
  {
    code: 154,
    name: "GPU recovery action changed",
    class: "hardware",
    meaning: "the GPU needs a reset or the node a reboot",
  },
];

const BY_CODE = new Map(CATALOGUE.map((x) => [x.code, x]));

/**
 * What Jobsight knows of an Xid code, or undefined for a code not in its catalogue.
 *
 * @example
 * ```ts
 * xidInfo(79)?.class; // "hardware"
 * ```
 */
export function xidInfo(code: number): XidInfo | undefined {
  return BY_CODE.get(code);
}

/**
 * A PCI address as `dddd:bb:dd` in lower case, so the kernel's `0000:3b:00` and nvidia-smi's
 * `00000000:3B:00.0` compare equal.
 */
export function normalisePciBusId(id: string): string | undefined {
  const m = /^(?:PCI:)?([0-9a-f]+):([0-9a-f]{2}):([0-9a-f]{2})(?:\.[0-7])?$/i.exec(id.trim());
  if (!m) return undefined;
  return `${m[1].slice(-4).padStart(4, "0")}:${m[2]}:${m[3]}`.toLowerCase();
}
