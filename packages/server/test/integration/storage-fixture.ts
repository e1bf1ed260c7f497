import type { JobRecord, UsageSample } from "@jobsight/schemas";
import { createTestDatabase, type TestDatabase } from "../../../../test/services/index.js";
import { type OpenedStorage, openStorage } from "../../src/data-plane/storage/open-storage.js";

/** A fresh database with the data plane migrated on it. */
export type StorageFixture = OpenedStorage & { db: TestDatabase; dispose(): Promise<void> };

export async function openTestStorage(prefix: string): Promise<StorageFixture> {
  const db = await createTestDatabase(prefix);
  const opened = await openStorage({ url: db.url, poolSize: 6 });
  return {
    ...opened,
    db,
    dispose: async () => {
      await opened.close();
      await db.drop();
    },
  };
}

/** A job record of `user` on `cluster`, submitted `minute` minutes after 2026-12-01T00:00Z. */
export function jobRecord(
  cluster: string,
  jobId: string,
  user: string,
  minute: number,
  extra: Partial<JobRecord> = {},
): JobRecord {
  const at = new Date(Date.UTC(2026, 11, 1) + minute * 60_000).toISOString();
  return {
    cluster,
    jobId,
    phase: "submitted",
    source: "slurm-controller",
    spec: {
      cluster,
      scheduler: "slurm",
      user,
      account: `acct-${user}`,
      partition: "batch",
      requested: { memoryBytes: 2 ** 30, cores: 2 },
    },
    submittedAt: at,
    ...extra,
  };
}

/** A usage sample of a job on a node at second `second` after 2026-12-01T10:00Z. */
export function usageSample(
  cluster: string,
  jobId: string,
  node: string,
  second: number,
  memory: number,
): UsageSample {
  return {
    cluster,
    jobId,
    node,
    time: new Date(Date.UTC(2026, 11, 1, 10) + second * 1000).toISOString(),
    memory: { currentBytes: memory, peakBytes: memory },
    cpu: { usageSeconds: second * 0.5 },
  };
}
