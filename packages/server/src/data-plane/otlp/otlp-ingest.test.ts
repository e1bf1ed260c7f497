import { encodeExportMetricsRequest, encodeObservations } from "@jobsight/otel-bridge";
import type { UsageSample } from "@jobsight/schemas";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RateLimitedError } from "../../errors.js";
import { hashApiToken } from "../../platform/identity/api-token-hash.js";
import type { PreparedSamples } from "../copy/prepared-samples.js";
import { IngestGate } from "../ingest-gate.js";
import { RateLimitStore } from "../stores/rate-limit-store.js";
import type { SampleStore } from "../stores/sample-store.js";
import { OtlpIngest } from "./otlp-ingest.js";

const sample = (i: number): UsageSample => ({
  cluster: "hpc1",
  jobId: "42",
  node: "cn001",
  time: new Date(Date.UTC(2026, 11, 1, 10) + i * 10_000).toISOString(),
  memory: { currentBytes: 2 ** 30 + i },
});
const body = encodeExportMetricsRequest(encodeObservations([sample(1), sample(2)]));
const collector = { role: "collector" as const, user: "svc", cluster: "hpc1", tokenId: "t1", via: "test" };

describe("OtlpIngest", () => {
  const ingests: OtlpIngest[] = [];
  afterEach(async () => {
    for (const ingest of ingests.splice(0)) await ingest.close();
  });

  it.each([
    ["plain", 0],
    ["timescale", 0],
    ["timescale", 1],
  ] as const)(
    "prepares exports for the sample store's flavour (%s, %i decode threads)",
    async (flavour, threads) => {
      const stored: PreparedSamples[] = [];
      const samples = {
        flavour,
        insertPrepared: vi.fn(async (batch: PreparedSamples) => {
          stored.push(batch);
          return { accepted: batch.count, duplicates: 0 };
        }),
      } as unknown as SampleStore;
      const ingest = new OtlpIngest({
        storage: { samples },
        verifiers: [],
        ingestGate: new IngestGate(4),
        decodeThreads: threads,
      });
      ingests.push(ingest);
      const outcome = await ingest.export(collector, (options) => ingest.decode(body, "protobuf", options));
      expect(outcome.accepted).toBe(2);
      expect(stored).toHaveLength(1);
      expect(stored[0].hourly === undefined).toBe(flavour === "timescale");
      expect(stored[0].days === undefined).toBe(flavour === "timescale");
    },
  );

  it("spends a token's OTLP budget by its hash before verifying it, in the store it is given", async () => {
    const store = new RateLimitStore();
    const verify = vi.fn(async (token: string) => (token === "good-token" ? collector : undefined));
    const ingest = new OtlpIngest({
      storage: { samples: { flavour: "plain" } as unknown as SampleStore },
      verifiers: [{ name: "test", verify }],
      ingestGate: new IngestGate(4),
      rateLimit: { requestsPerSecond: 1, burst: 2, store },
    });
    ingests.push(ingest);
    await expect(ingest.authorize("Bearer good-token")).resolves.toMatchObject({ cluster: "hpc1" });
    await expect(ingest.authorize("Bearer good-token")).resolves.toMatchObject({ cluster: "hpc1" });
    const limited = await ingest.authorize("Bearer good-token").catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterSeconds).toBeCloseTo(1, 1);
    // Invalid tokens are limited too, and never reach a verifier once over.
    for (let i = 0; i < 2; i++)
      await expect(ingest.authorize("Bearer bad-token")).rejects.toThrow("not valid");
    await expect(ingest.authorize("Bearer bad-token")).rejects.toBeInstanceOf(RateLimitedError);
    expect(verify).toHaveBeenCalledTimes(4);
    // The REST API's budget of the same token is its own.
    expect(store.take(`t:${hashApiToken("good-token")}`, 2, 2000)).toBe(0);
    expect(store.take(`otlp:t:${hashApiToken("good-token")}`, 2, 2000)).toBeGreaterThan(0);
  });
});
