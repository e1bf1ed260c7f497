import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { syncDirectory, writeFileAtomic } from "./atomic-file.js";
import { decodeFrame } from "./frame.js";
import { nodeSpoolFs, type SpoolFs } from "./spool-fs.js";
import { type Segment, segmentName } from "./spool-recovery.js";

/** Options of {@link compactSegment}. */
export type CompactSegmentOptions = {
  /** The spool directory the segment lives in. */
  dir: string;
  /** Records up to and including this sequence were acknowledged and are left out. */
  ackedSeq: number;
  /** Drop the oldest usage samples until at least this many bytes are freed. */
  bytesToFree: number;
  /** File-system calls for writing. @default node:fs/promises */
  fs?: SpoolFs;
};

/** What {@link compactSegment} did. */
export type CompactedSegment = {
  /** Usage samples dropped to free space (acknowledged records left out are not counted). */
  dropped: number;
  /** The segment's new generation, or `null` when nothing was kept and no file remains. */
  segment: Segment | null;
};

/**
 * Rewrite a closed segment without its acknowledged records and without its oldest usage samples
 * (up to `bytesToFree`). The new generation is renamed into place before the old one is removed,
 * so a crash leaves one complete copy. The caller must not be appending to `seg`.
 *
 * @example
 * ```ts
 * const { dropped, segment } = await compactSegment(seg, { dir, ackedSeq: 41, bytesToFree: 1 << 20 });
 * if (segment) Object.assign(seg, segment);
 * ```
 */
export async function compactSegment(
  seg: Segment,
  options: CompactSegmentOptions,
): Promise<CompactedSegment> {
  const all = await readFile(seg.path);
  const kept: Buffer[] = [];
  let freed = 0;
  let dropped = 0;
  let usage = 0;
  let firstSeq = -1;
  let lastSeq = -1;
  for (let offset = 0; offset < seg.bytes; ) {
    const f = decodeFrame(all, offset);
    if (typeof f !== "object") break;
    offset += f.length;
    if (f.seq <= options.ackedSeq) continue;
    if (f.kind === "usage" && freed < options.bytesToFree) {
      freed += f.length;
      dropped++;
      continue;
    }
    kept.push(all.subarray(f.offset, f.offset + f.length));
    if (f.kind === "usage") usage++;
    if (firstSeq < 0) firstSeq = f.seq;
    lastSeq = f.seq;
  }
  const gen = seg.gen + 1;
  const path = join(options.dir, segmentName(seg.id, gen));
  const body = Buffer.concat(kept);
  const fs = options.fs ?? nodeSpoolFs;
  if (body.length > 0) await writeFileAtomic(path, body, fs);
  await fs.unlink(seg.path);
  await syncDirectory(options.dir);
  return {
    dropped,
    segment: body.length === 0 ? null : { ...seg, gen, path, bytes: body.length, firstSeq, lastSeq, usage },
  };
}

/** Options of {@link trimSegments}. */
export type TrimSegmentsOptions = Omit<CompactSegmentOptions, "bytesToFree"> & {
  /** Stop once the segments hold at most this many bytes. */
  targetBytes: number;
  /** Called before `seg` is rewritten: the caller stops appending to it. */
  release: (seg: Segment) => Promise<void>;
  /** Called after each rewrite with the number of usage samples it dropped. */
  dropped: (count: number) => void;
};

/**
 * Drop the oldest usage samples, segment by segment, until `segments` (updated in place) hold at
 * most `targetBytes`. A failure (disk full) stops the trim with every segment whole and every
 * drop so far reported.
 *
 * @example
 * ```ts
 * await trimSegments(segments, { dir, ackedSeq, targetBytes, release: async () => {}, dropped: (n) => (total += n) });
 * ```
 */
export async function trimSegments(segments: Segment[], options: TrimSegmentsOptions): Promise<void> {
  const bytes = () => segments.reduce((n, s) => n + s.bytes, 0);
  for (const seg of [...segments]) {
    if (bytes() <= options.targetBytes) break;
    if (seg.usage === 0) continue;
    await options.release(seg);
    const r = await compactSegment(seg, { ...options, bytesToFree: bytes() - options.targetBytes });
    if (r.segment === null) segments.splice(segments.indexOf(seg), 1);
    else Object.assign(seg, r.segment);
    options.dropped(r.dropped);
  }
}
