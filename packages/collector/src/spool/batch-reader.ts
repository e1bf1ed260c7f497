import type { SpoolRecord } from "./frame.js";
import { scanSegment } from "./segment-scan.js";
import type { Segment } from "./spool-recovery.js";

/** Bounds of one batch read by {@link BatchReader.read}. */
export type BatchLimits = {
  /** Records up to this sequence are acknowledged and skipped. */
  ackedSeq: number;
  maxRecords: number;
  maxBytes: number;
  untilSeq: number;
};

/**
 * Reads the oldest unacknowledged records from the segments, one kind per batch. It remembers
 * where the last batch ended, so reading the next one does not rescan the segment from its start.
 *
 * @example
 * ```ts
 * const reader = new BatchReader();
 * const batch = await reader.read(segments, { ackedSeq: 0, maxRecords: 500, maxBytes: 1 << 22, untilSeq: Infinity });
 * ```
 */
export class BatchReader {
  private hint: { id: number; gen: number; offset: number; seq: number } | undefined;

  /** Forget the position in segment `id` (it was rewritten). */
  forget(id: number): void {
    if (this.hint?.id === id) this.hint = undefined;
  }

  async read(segments: Segment[], limits: BatchLimits): Promise<SpoolRecord[]> {
    const out: SpoolRecord[] = [];
    let bytes = 0;
    let done = false;
    const from = limits.ackedSeq + 1;
    for (const seg of segments) {
      if (done) break;
      if (seg.lastSeq < from || seg.bytes === 0) continue;
      const hint = this.hint;
      const start = hint && hint.id === seg.id && hint.gen === seg.gen && hint.seq < from ? hint.offset : 0;
      await scanSegment(seg.path, start, (f, payload) => {
        if (f.offset + f.length > seg.bytes) return false;
        if (f.seq < from) return true;
        if (
          f.seq > limits.untilSeq ||
          out.length >= limits.maxRecords ||
          (out.length > 0 && (f.kind !== out[0].kind || bytes + f.length > limits.maxBytes))
        ) {
          done = true;
          return false;
        }
        out.push({ seq: f.seq, kind: f.kind, value: JSON.parse(payload.toString("utf8")) });
        bytes += f.length;
        this.hint = { id: seg.id, gen: seg.gen, offset: f.offset + f.length, seq: f.seq };
        return true;
      });
    }
    return out;
  }
}
