import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImportProgress, importHistory } from "../../src/data-plane/import/import-history.js";
import { importSacctFile } from "../../src/data-plane/import/import-sacct.js";
import { importSwfFile, swfItems } from "../../src/data-plane/import/import-swf.js";
import { SwfReader } from "../../src/data-plane/import/swf-parser.js";
import { readImportCheckpoint } from "../../src/data-plane/stores/import-checkpoints.js";
import { openTestStorage, type StorageFixture } from "./storage-fixture.js";

const LANL = new URL("../../../../data/traces/LANL-CM5-1994-4.1-cln.swf.gz", import.meta.url).pathname;
const SACCT = new URL("../fixtures/sacct-all-states.json", import.meta.url).pathname;

describe("history import", () => {
  let fx: StorageFixture;
  beforeAll(async () => {
    fx = await openTestStorage("history");
  });
  afterAll(async () => {
    await fx?.dispose();
  });

  it("imports the whole LANL-CM5 log, and a second import stores nothing twice", async () => {
    const progress: ImportProgress[] = [];
    const first = await importSwfFile(LANL, {
      storage: fx.storage,
      cluster: "lanl-cm5",
      onProgress: (p) => progress.push(p),
    });
    expect(first).toMatchObject({ imported: 122_060, duplicates: 0, badLines: 0, resumedFrom: 0 });
    expect(await fx.storage.jobs.count("lanl-cm5")).toBe(122_060);
    expect(progress.length).toBeGreaterThan(10);
    expect(progress.map((p) => p.imported)).toEqual(
      [...progress.map((p) => p.imported)].sort((a, b) => a - b),
    );
    console.log(`LANL-CM5 import: ${first.imported} jobs in ${(first.elapsedMs / 1000).toFixed(1)} s`);

    // Again, ignoring the checkpoint: every job is a duplicate, nothing is stored twice.
    const again = await importSwfFile(LANL, { storage: fx.storage, cluster: "lanl-cm5", restart: true });
    expect(again).toMatchObject({ imported: 0, duplicates: 122_060, badLines: 0 });
    expect(await fx.storage.jobs.count("lanl-cm5")).toBe(122_060);

    // Again, with the checkpoint: the completed source is skipped.
    const resumed = await importSwfFile(LANL, { storage: fx.storage, cluster: "lanl-cm5" });
    expect(resumed.skipped).toBe(122_060);
    expect(await fx.storage.jobs.count("lanl-cm5")).toBe(122_060);

    const groups = await fx.storage.history({ cluster: "lanl-cm5", minCount: 500 });
    expect(groups.some((g) => g.level === "user_executable" && g.peakMemoryBytes.n > 0)).toBe(true);
  }, 120_000);

  it("resumes an interrupted import after the last committed line", async () => {
    // The first 15,000 job lines of the same log keep this test short; the resume logic does not
    // depend on the length of the source.
    const text = gunzipSync(await readFile(LANL))
      .toString("utf8")
      .split("\n")
      .slice(0, 15_030)
      .join("\n");
    const source = () => swfItems(SwfReader.fromBuffer(text), "lanl-resume");
    const options = {
      storage: fx.storage,
      sourceId: "test:lanl-first-lines",
      sourceKind: "swf",
      batchSize: 2000,
    };
    const controller = new AbortController();
    const partial = await importHistory(source(), {
      ...options,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.imported >= 4000) controller.abort();
      },
    });
    expect(partial.imported).toBe(4000);
    const checkpoint = await readImportCheckpoint(fx.storage.pool, partial.sourceId);
    expect(checkpoint).toMatchObject({ imported: 4000, completed: false });
    expect(await fx.storage.jobs.count("lanl-resume")).toBe(4000);

    const rest = await importHistory(source(), options);
    const total = await fx.storage.jobs.count("lanl-resume");
    expect(rest.resumedFrom).toBe(checkpoint!.lastLine);
    expect(rest.skipped).toBe(4000);
    expect(rest).toMatchObject({ imported: total, duplicates: 0 });
    expect(total).toBeGreaterThan(14_000);
    expect(await readImportCheckpoint(fx.storage.pool, partial.sourceId)).toMatchObject({
      completed: true,
      imported: total,
    });
  }, 120_000);

  it("imports the real sacct --json export, twice, storing once", async () => {
    const first = await importSacctFile(SACCT, {
      storage: fx.storage,
      format: "json",
      cluster: "slurm-test",
    });
    expect(first).toMatchObject({ imported: 12, badLines: 0 });
    const again = await importSacctFile(SACCT, {
      storage: fx.storage,
      format: "json",
      cluster: "slurm-test",
      restart: true,
    });
    expect(again).toMatchObject({ imported: 0, duplicates: 12 });
    const [oom] = await fx.storage.jobs.find("7", { cluster: "slurm-test" });
    expect(oom.outcome?.state).toBe("OUT_OF_MEMORY");
  });
});
