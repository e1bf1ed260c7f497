import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CgroupReader } from "./cgroup-usage.js";
import { CgroupV1Discovery } from "./cgroup-v1-discovery.js";
import { CgroupV1Reader } from "./cgroup-v1-reader.js";
import { CgroupV2Discovery, type DiscoveredJob } from "./cgroup-v2-discovery.js";
import { CgroupV2Reader } from "./cgroup-v2-reader.js";

/** Which cgroup hierarchy a node has. `none`: no usable cgroups (SLURM with proctrack/linuxproc). */
export type CgroupVersion = "v2" | "v1" | "none";

/**
 * Tell the cgroup hierarchy mounted at `root`: the unified hierarchy has `cgroup.controllers` at
 * its top; the legacy one has a directory per controller.
 *
 * @example
 * ```ts
 * detectCgroupVersion("/sys/fs/cgroup"); // "v2" on current distributions
 * ```
 */
export function detectCgroupVersion(root: string): CgroupVersion {
  if (existsSync(join(root, "cgroup.controllers"))) return "v2";
  if (existsSync(join(root, "memory", "memory.usage_in_bytes")) || existsSync(join(root, "memory", "tasks")))
    return "v1";
  return "none";
}

/** Discovery and reader for one hierarchy. */
export type CgroupSource = { version: "v1" | "v2"; discover(): DiscoveredJob[]; reader: CgroupReader };

/** The discovery and reader that fit a hierarchy. */
export function cgroupSource(version: "v1" | "v2", root: string): CgroupSource {
  if (version === "v2") {
    const d = new CgroupV2Discovery({ root, includeSteps: false });
    return { version, discover: () => d.discover(), reader: new CgroupV2Reader() };
  }
  const d = new CgroupV1Discovery({ root, includeSteps: false });
  return { version, discover: () => d.discover(), reader: new CgroupV1Reader({ root }) };
}
