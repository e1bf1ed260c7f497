import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UsageSample } from "@jobsight/schemas/light";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The data plane's own OTLP receivers over a fresh PostgreSQL database, as its tests start them.
import {
  type OtlpFixture,
  richSamples,
  startOtlpFixture,
  TOKENS,
} from "../../../server/test/integration/otlp/otlp-fixture.js";
import { OtlpSink } from "../../src/ship/otlp-sink.js";
import { Shipper } from "../../src/ship/shipper.js";
import { DiskSpool } from "../../src/spool/disk-spool.js";

describe("collector over OTLP/gRPC against the data plane's partial success", () => {
  let fx: OtlpFixture;
  let dir: string;
  beforeAll(async () => {
    fx = await startOtlpFixture("collector-otlp-partial");
    dir = mkdtempSync(join(tmpdir(), "jobsight-otlp-partial-it-"));
  });
  afterAll(async () => {
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores the token's cluster's samples, dead-letters exactly the others, and counts both exactly", async () => {
    // hpc1's token: the hpc2 samples' points are rejected one by one inside an accepted export.
    const own = richSamples("hpc1", "7001", 6, "gpu07");
    const foreign = richSamples("hpc2", "7002", 3, "gpu07");
    const samples: UsageSample[] = [
      own[0],
      foreign[0],
      own[1],
      own[2],
      foreign[1],
      own[3],
      own[4],
      foreign[2],
      own[5],
    ];
    const spool = await DiskSpool.open({ dir });
    await spool.append(samples.map((value) => ({ kind: "usage" as const, value })));
    const sink = new OtlpSink({
      otlpUrl: fx.receivers.grpc.url,
      restUrl: "http://127.0.0.1:9",
      token: TOKENS.hpc1,
    });
    const shipper = new Shipper({ spool, sink });

    await shipper.tick();

    expect(await fx.rowCount()).toBe(own.length);
    expect(shipper.stats()).toMatchObject({
      sentBatches: 1,
      sentRecords: own.length,
      rejectedBatches: 0,
      rejectedRecords: foreign.length,
      failures: 0,
    });
    expect(spool.stats().unacked).toBe(0);
    const folder = join(dir, "rejected");
    const files = existsSync(folder) ? readdirSync(folder) : [];
    expect(files).toHaveLength(1);
    const kept = JSON.parse(readFileSync(join(folder, files[0]), "utf8"));
    expect(kept.batch.samples).toEqual(foreign);
    expect(kept.rejected.map((r: { index: number }) => r.index)).toEqual([0, 1, 2]);
    for (const r of kept.rejected)
      expect(r.message).toMatch(/cluster hpc2 is not this sender's cluster \(hpc1\)/);

    await shipper.stop();
    await spool.close();
  });
});
