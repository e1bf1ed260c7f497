import { randomBytes } from "node:crypto";

/**
 * Builds a name that no other test in this run (or a leftover from an earlier run) uses:
 * the sanitised prefix, the process id and random hex, within `maxLength` characters.
 *
 * @example
 * uniqueName("Ingest Test", { separator: "_", maxLength: 63 }); // "ingest_test_4242_9f1c2a7b"
 */
export function uniqueName(prefix: string, options: { separator: "_" | "-"; maxLength: number }): string {
  const { separator, maxLength } = options;
  const suffix = `${process.pid}${separator}${randomBytes(4).toString("hex")}`;
  const cleaned = prefix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, separator)
    .replace(new RegExp(`^[${separator}0-9]+|${separator}+$`, "g"), "");
  const room = maxLength - suffix.length - 1;
  const head = (cleaned || "t").slice(0, room).replace(new RegExp(`${separator}+$`), "");
  return `${head}${separator}${suffix}`;
}
