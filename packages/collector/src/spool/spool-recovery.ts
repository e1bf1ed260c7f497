import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../log/logger.js";
import { syncDirectory, writeFileAtomic } from "./atomic-file.js";
import { scanSegment } from "./segment-scan.js";
import {
  makePrivateDir,
  nodeSpoolFs,
  SPOOL_DIR_MODE,
  SPOOL_FILE_MODE,
  type SpoolFs,
  tighten,
} from "./spool-fs.js";
import { readSpoolState, type SpoolState } from "./spool-state.js";

/** A segment file as the spool tracks it. */
export type Segment = {
  id: number;
  gen: number;
  path: string;
  bytes: number;
  firstSeq: number;
  lastSeq: number;
  usage: number;
};

const SEGMENT_NAME = /^seg-(\d{16})\.(\d+)\.log$/;

/** File name of generation `gen` of segment `id` (its first sequence number when created). */
export const segmentName = (id: number, gen: number) => `seg-${String(id).padStart(16, "0")}.${gen}.log`;

/** What recovery found in a spool directory. */
export type RecoveredSpool = {
  id: string;
  state: SpoolState;
  segments: Segment[];
  nextSeq: number;
  unacked: number;
  discarded: number;
};

/**
 * Bring a spool directory to a consistent state after whatever stopped the last process: remove
 * temporary files, keep the newest generation of a segment caught mid-compaction, verify every
 * frame's checksum and cut each segment after its last good frame, delete fully acknowledged
 * segments, and make the directory 0700 and its files 0600 if an older version left them open.
 * The next sequence number is past anything ever written or acknowledged, so an
 * idempotency key is never reused.
 *
 * @example
 * ```ts
 * const { segments, state } = await recoverSpool("/var/lib/jobsight/spool", log);
 * ```
 */
export async function recoverSpool(
  dir: string,
  log: Logger,
  fs: SpoolFs = nodeSpoolFs,
): Promise<RecoveredSpool> {
  await makePrivateDir(dir, fs);
  const idPath = join(dir, "spool-id");
  let id: string;
  try {
    id = (await readFile(idPath, "utf8")).trim();
    if (!/^[a-f0-9]{16}$/.test(id)) throw new Error("bad id");
  } catch {
    // Only a new spool needs an id: node:crypto is not kept in memory for the collector's lifetime.
    const { randomBytes } = await import("node:crypto");
    id = randomBytes(8).toString("hex");
    await writeFileAtomic(idPath, id, fs);
  }
  const { state, problem } = await readSpoolState(join(dir, "state.json"));
  if (problem) log.error("spool state unreadable; resending what is spooled", { problem });

  const byId = new Map<number, { gen: number; name: string }[]>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const name = entry.name;
    if (name.endsWith(".tmp")) {
      await fs.unlink(join(dir, name)).catch(() => {});
      continue;
    }
    await tighten(join(dir, name), entry.isDirectory() ? SPOOL_DIR_MODE : SPOOL_FILE_MODE, fs);
    const m = SEGMENT_NAME.exec(name);
    if (!m) continue;
    const list = byId.get(Number(m[1])) ?? [];
    list.push({ gen: Number(m[2]), name });
    byId.set(Number(m[1]), list);
  }
  const segments: Segment[] = [];
  let maxSeq = Math.max(state.ackedSeq, state.pending?.lastSeq ?? 0);
  let unacked = 0;
  let discarded = 0;
  for (const segId of [...byId.keys()].sort((a, b) => a - b)) {
    // A crash mid-compaction can leave two generations: the newer one is complete (renamed into place).
    const gens = byId.get(segId)!.sort((a, b) => b.gen - a.gen);
    for (const old of gens.slice(1)) await fs.unlink(join(dir, old.name)).catch(() => {});
    const path = join(dir, gens[0].name);
    const scan = await scanSegment(path);
    if (scan.validBytes < scan.fileBytes) {
      discarded += scan.fileBytes - scan.validBytes;
      log.warn("spool segment had a torn or corrupt tail; cut off", {
        segment: gens[0].name,
        keptBytes: scan.validBytes,
        discardedBytes: scan.fileBytes - scan.validBytes,
        stop: scan.stop,
      });
      await fs.truncate(path, scan.validBytes);
    }
    for (const f of scan.frames) maxSeq = Math.max(maxSeq, f.seq);
    const live = scan.frames.filter((f) => f.seq > state.ackedSeq);
    if (live.length === 0) {
      // Left for the next start if it cannot go now: everything in it was delivered.
      await fs.unlink(path).catch((error) => log.warn("cannot delete a spent segment", { path, error }));
      continue;
    }
    unacked += live.length;
    segments.push({
      id: segId,
      gen: gens[0].gen,
      path,
      bytes: scan.validBytes,
      firstSeq: scan.frames[0].seq,
      lastSeq: scan.frames[scan.frames.length - 1].seq,
      usage: scan.frames.filter((f) => f.kind === "usage").length,
    });
  }
  await syncDirectory(dir);
  return { id, state, segments, nextSeq: maxSeq + 1, unacked, discarded };
}
