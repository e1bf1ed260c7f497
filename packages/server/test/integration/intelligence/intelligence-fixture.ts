import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobSpec } from "@jobsight/schemas";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../../src/app.js";
import { type ImportItem, importHistory } from "../../../src/data-plane/import/import-history.js";
import { swfItems } from "../../../src/data-plane/import/import-swf.js";
import { SwfReader } from "../../../src/data-plane/import/swf-parser.js";
import { LocalObjectStore } from "../../../src/data-plane/objects/local-object-store.js";
import { intelligenceHandlers } from "../../../src/http/routes/intelligence/intelligence-handlers.js";
import { IntelligenceService } from "../../../src/intelligence/intelligence-service.js";
import type { IntelligenceServiceOptions } from "../../../src/intelligence/service-options.js";
import { openTestStorage, type StorageFixture } from "../storage-fixture.js";
import { PRINCIPALS, type TestPrincipal, testServerConfig } from "../test-server-config.js";

export const LANL = new URL("../../../../../data/traces/LANL-CM5-1994-4.1-cln.swf.gz", import.meta.url)
  .pathname;

// Kept importable from here for the tests that build on this fixture.
export { bearer, TOKENS } from "../test-server-config.js";

const P = PRINCIPALS;
/** The principals {@link testApp} accepts unless told otherwise. */
export const TEST_APP_PRINCIPALS: readonly TestPrincipal[] = [
  P.alice,
  P.bob,
  P.collector,
  P.collectorLanl,
  P.platform,
  P.platformHpc2,
  P.scheduler,
];

/** Small, fast training for tests: the same code path with fewer and shallower trees. */
export const FAST_TRAINING: IntelligenceServiceOptions["training"] = { trees: 20, maxDepth: 4 };

/** A fresh database, a local object folder, and the first `jobs` jobs of LANL-CM5 imported. */
export type IntelligenceFixture = {
  fx: StorageFixture;
  objects: LocalObjectStore;
  objectsDir: string;
  dispose(): Promise<void>;
};

async function* firstJobs(
  items: AsyncIterable<ImportItem>,
  count: number,
  skip = 0,
): AsyncGenerator<ImportItem> {
  let n = 0;
  for await (const item of items) {
    if ("record" in item) {
      if (n >= skip + count) return;
      if (n++ < skip) continue;
    }
    yield item;
  }
}

/** Imports LANL-CM5 jobs `skip` to `skip + count` into the fixture's database (more history later on). */
export async function importLanlJobs(f: IntelligenceFixture, prefix: string, skip: number, count: number) {
  const items = swfItems(SwfReader.fromFile(LANL), "lanl");
  await importHistory(firstJobs(items, count, skip), {
    storage: f.fx.storage,
    sourceId: `${prefix}-lanl-${skip}`,
    sourceKind: "swf",
  });
}

export async function openIntelligenceFixture(prefix: string, jobs: number): Promise<IntelligenceFixture> {
  const fx = await openTestStorage(prefix);
  const objectsDir = await mkdtemp(join(tmpdir(), `jobsight-${prefix}-`));
  const objects = new LocalObjectStore({ dir: objectsDir });
  if (jobs > 0) {
    const items = swfItems(SwfReader.fromFile(LANL), "lanl");
    await importHistory(firstJobs(items, jobs), {
      storage: fx.storage,
      sourceId: `${prefix}-lanl`,
      sourceKind: "swf",
    });
  }
  return {
    fx,
    objects,
    objectsDir,
    dispose: async () => {
      await objects.close();
      await fx.dispose();
      await rm(objectsDir, { recursive: true, force: true });
    },
  };
}

/** A service over the fixture with the test defaults (no background timers unless asked). */
export function testService(f: IntelligenceFixture, options: Partial<IntelligenceServiceOptions> = {}) {
  return new IntelligenceService({
    storage: f.fx.storage,
    objectStore: f.objects,
    trainOnStart: false,
    retrainIntervalMs: 0,
    recalibrateIntervalMs: 0,
    refreshIntervalMs: 3_600_000,
    minJobsPerResource: 200,
    holdoutShare: 0.2,
    minComparisonJobs: 50,
    training: FAST_TRAINING,
    ...options,
  });
}

/** The app with the intelligence handlers of `service`, accepting the tokens of `principals`. */
export async function testApp(
  f: IntelligenceFixture,
  service: IntelligenceService,
  principals: readonly TestPrincipal[] = TEST_APP_PRINCIPALS,
): Promise<FastifyInstance> {
  return buildApp({
    config: testServerConfig(f.objectsDir, principals),
    storage: f.fx.storage,
    objectStore: f.objects,
    handlers: (deps) => intelligenceHandlers(deps, service),
  });
}

/** The spec of a stored job (what its submission asked for), read back from the database. */
export async function storedSpecs(f: IntelligenceFixture, limit: number, offset = 0): Promise<JobSpec[]> {
  const { rows } = await f.fx.storage.pool.query<{ spec: JobSpec }>(
    "SELECT record->'spec' AS spec FROM jobs ORDER BY submitted_at DESC, job_id DESC LIMIT $1 OFFSET $2",
    [limit, offset],
  );
  return rows.map((r) => r.spec);
}
