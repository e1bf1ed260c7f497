import { randomBytes } from "node:crypto";

/**
 * A trained model's version: its creation time and a random suffix, e.g. `20261202T103000Z-3fa2c1`.
 *
 * @example
 * ```ts
 * newModelVersion(new Date("2026-12-02T10:30:00Z")); // "20261202T103000Z-3fa2c1"
 * ```
 */
export function newModelVersion(now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** A version and what it is: the trained model it comes from and its calibration revision (0: as trained). */
export type ModelLineage = { trained: string; revision: number };

const REVISION = /^(.+)\.c(\d+)$/;

/**
 * What a version is made of: `20261202T103000Z-3fa2c1.c3` is the third recalibration of the trees
 * trained as `20261202T103000Z-3fa2c1`.
 *
 * @example
 * ```ts
 * lineageOf("20261202T103000Z-3fa2c1.c3"); // { trained: "20261202T103000Z-3fa2c1", revision: 3 }
 * ```
 */
export function lineageOf(version: string): ModelLineage {
  const match = REVISION.exec(version);
  return match ? { trained: match[1], revision: Number(match[2]) } : { trained: version, revision: 0 };
}

/**
 * The version of the next recalibration of a model: the same trees, the next calibration revision.
 *
 * @example
 * ```ts
 * recalibratedVersion("20261202T103000Z-3fa2c1"); // "20261202T103000Z-3fa2c1.c1"
 * recalibratedVersion("20261202T103000Z-3fa2c1.c1"); // "20261202T103000Z-3fa2c1.c2"
 * ```
 */
export function recalibratedVersion(version: string): string {
  const { trained, revision } = lineageOf(version);
  return `${trained}.c${revision + 1}`;
}
