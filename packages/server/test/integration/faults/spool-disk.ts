import { execFile } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * The disk the collectors' spools live on, which the test can fill up and free again:
 * - `tmpfs`: a small tmpfs mounted by the test (needs root); filling it writes a file until the
 *   kernel says ENOSPC, as a runaway log would, so every write of the spool meets a real full disk;
 * - `injected`: where mounting is not allowed, the node collector runs with the spool's
 *   injectable file system (`FullDisk`), switched full and back by a flag file.
 */
export type SpoolDisk = {
  kind: "tmpfs" | "injected";
  /** Folder the spools are made in. */
  dir: string;
  /** For `injected`: the flag file whose presence means the disk is full. */
  flagFile?: string;
  /** A line for the test output saying which was used and why. */
  description: string;
  fill(): Promise<void>;
  free(): Promise<void>;
  dispose(): Promise<void>;
};

const TMPFS_BYTES = 8 * 1024 * 1024;

/**
 * Mounts a tmpfs for the spools when it can (root, and `JOBSIGHT_FAULTS_DISK` is not `injected`),
 * else falls back to the injected full disk.
 *
 * @example
 * ```ts
 * const disk = await openSpoolDisk();
 * await disk.fill(); // the spools' disk is full
 * await disk.free();
 * ```
 */
export async function openSpoolDisk(): Promise<SpoolDisk> {
  const dir = await mkdtemp(join(tmpdir(), "jobsight-faults-spool-"));
  let why = "JOBSIGHT_FAULTS_DISK=injected";
  if (process.env.JOBSIGHT_FAULTS_DISK !== "injected") {
    try {
      await run("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_BYTES},mode=0700`, "jobsight-faults", dir]);
      return tmpfsDisk(dir);
    } catch (error) {
      why = `mount -t tmpfs failed (${(error as Error).message.split("\n")[0]})`;
    }
  }
  const flagFile = join(dir, "disk-full.flag");
  return {
    kind: "injected",
    dir,
    flagFile,
    description: `injected full disk (FullDisk as the spool's fs, in the node collector's process): ${why}`,
    fill: () => writeFile(flagFile, "full\n"),
    free: () => unlink(flagFile).catch(() => {}),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

function tmpfsDisk(dir: string): SpoolDisk {
  const filler = join(dir, "filler");
  return {
    kind: "tmpfs",
    dir,
    description: `tmpfs of ${TMPFS_BYTES / 1024 / 1024} MiB mounted at ${dir}, filled by a file written until ENOSPC`,
    async fill() {
      const fd = openSync(filler, "a");
      try {
        // Big writes first, then pages, until not one more byte fits.
        for (const size of [1024 * 1024, 4096, 1]) {
          const chunk = Buffer.alloc(size);
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === "ENOSPC") break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free: () => unlink(filler).catch(() => {}),
    async dispose() {
      for (let attempt = 0; ; attempt++) {
        try {
          await run("umount", [dir]);
          break;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
