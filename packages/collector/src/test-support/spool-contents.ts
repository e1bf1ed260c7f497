import type { JobRecord, NodeEvent, UsageSample } from "@jobsight/schemas/light";
import type { DiskSpool } from "../spool/disk-spool.js";

/** What a spool held, by kind, in spool order. */
export type SpoolContents = { samples: UsageSample[]; events: NodeEvent[]; jobs: JobRecord[] };

/** Takes everything `spool` holds, acknowledging it, sorted by kind (tests read what was spooled). */
export async function takeSpooled(spool: DiskSpool): Promise<SpoolContents> {
  const out: SpoolContents = { samples: [], events: [], jobs: [] };
  for (;;) {
    const batch = await spool.peek({ maxRecords: 1000 });
    if (batch.length === 0) return out;
    for (const r of batch) {
      if (r.kind === "usage") out.samples.push(r.value as UsageSample);
      else if (r.kind === "event") out.events.push(r.value as NodeEvent);
      else if (r.kind === "job") out.jobs.push(r.value as JobRecord);
    }
    await spool.ack(batch[batch.length - 1].seq, batch.length);
  }
}
