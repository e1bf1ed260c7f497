import type { UsageSample } from "@jobsight/schemas";
import { describe, expect, it } from "vitest";
import { hourlySummaryParameters } from "../queries/hourly-summary.js";
import { prepareSamples, sampleRow } from "./prepared-samples.js";

const sample = (i: number): UsageSample => ({
  cluster: "hpc1",
  jobId: `j${i % 2}`,
  node: "cn001",
  // Straddles midnight: two UTC days.
  time: new Date(Date.UTC(2026, 11, 1, 23, 59, 40) + i * 10_000).toISOString(),
  memory: { currentBytes: 2 ** 30 + i },
  cpu: { usageSeconds: i },
});
const samples = Array.from({ length: 6 }, (_, i) => sample(i));

describe("prepareSamples", () => {
  it("adds the hourly summary parameters and the UTC days by default (plain PostgreSQL)", () => {
    const prepared = prepareSamples(samples);
    expect(prepared.count).toBe(6);
    expect(prepared.hourly).toEqual(hourlySummaryParameters(samples.map(sampleRow)));
    expect(prepared.days).toEqual([Date.UTC(2026, 11, 1), Date.UTC(2026, 11, 2)]);
    expect(prepareSamples(samples, { flavour: "plain" })).toEqual(prepared);
  });

  it("leaves out the hourly summary parameters and days for TimescaleDB, with the same COPY text", () => {
    const prepared = prepareSamples(samples, { flavour: "timescale" });
    expect(prepared.count).toBe(6);
    expect(prepared.hourly).toBeUndefined();
    expect(prepared.days).toBeUndefined();
    expect(Buffer.from(prepared.copyText).toString()).toBe(
      Buffer.from(prepareSamples(samples).copyText).toString(),
    );
  });
});
