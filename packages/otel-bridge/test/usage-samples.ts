import type { UsageSample } from "@jobsight/schemas";

/**
 * Usage samples covering every field of the UsageSample schema, in canonical time form (as
 * decoded samples come back), shared by the unit and integration tests of the mapping.
 */
export function usageSamples(): UsageSample[] {
  return [
    {
      cluster: "hpc1",
      jobId: "4242",
      node: "gpu07",
      time: "2026-12-02T16:30:00.000Z",
      user: "alice",
      memory: {
        currentBytes: 34_359_738_368,
        peakBytes: 40_000_000_000,
        limitBytes: 68_719_476_736,
        anonBytes: 30_000_000_000,
        fileBytes: 4_000_000_000,
        shmemBytes: 1_073_741_824,
        swapBytes: 0,
        oomEvents: 2,
        oomKillEvents: 1,
      },
      cpu: {
        usageSeconds: 12_345.678901,
        userSeconds: 11_000.5,
        systemSeconds: 1_345.178901,
        periods: 100_000,
        throttledPeriods: 250,
        throttledSeconds: 37.25,
        limitCores: 8,
      },
      io: { readBytes: 1_234_567_890_123, writeBytes: 987_654_321, readOps: 77_000, writeOps: 1_200 },
      pids: 37,
      pressure: { cpuSome: 12.34, memorySome: 0.57, memoryFull: 0.1, ioSome: 99.99, ioFull: 33.33 },
      gpus: [
        {
          index: 0,
          uuid: "GPU-5f3c0d1e-aaaa-bbbb-cccc-0123456789ab",
          pciBusId: "00000000:3B:00.0",
          utilizationPercent: 57,
          memoryUsedBytes: 42_949_672_960,
          memoryTotalBytes: 85_899_345_920,
          powerWatts: 312.45,
          temperatureCelsius: 71,
        },
        { index: 3, utilizationPercent: 12.5, memoryUsedBytes: 0 },
      ],
      progress: { done: 1_200, total: 5_000, unit: "step" },
      processes: [
        { pid: 1234, command: "python", rssBytes: 30_000_000_000, state: "R" },
        { pid: 1301, command: "pt_data_worker", rssBytes: 2_000_000_000, state: "D" },
      ],
    },
    {
      cluster: "hpc1",
      jobId: "4242",
      node: "gpu07",
      step: "0",
      time: "2026-12-02T16:30:00.123456789Z",
      memory: { currentBytes: 1_000 },
      cpu: { usageSeconds: 0.5 },
    },
    {
      cluster: "hpc1",
      jobId: "4242",
      node: "gpu08",
      time: "2026-12-02T16:30:01.500Z",
      user: "alice",
      memory: { currentBytes: 2_000, limitBytes: 68_719_476_736 },
      cpu: { usageSeconds: 3, limitCores: 0.5 },
      gpus: [{ index: 1, utilizationPercent: 0, memoryUsedBytes: 1 }],
      progress: { done: 37.5, total: 100 },
      final: true,
    },
    {
      cluster: "hpc2",
      jobId: "7",
      node: "cn001",
      time: "2026-12-02T16:31:00.000Z",
      user: "bob",
      pids: 1,
      pressure: { memorySome: 100 },
    },
  ].map((s) => JSON.parse(JSON.stringify(s)) as UsageSample);
}

/** Samples sorted by identity, so sets can be compared whatever order the decoder yields. */
export function sortSamples(samples: readonly UsageSample[]): UsageSample[] {
  const key = (s: UsageSample) => [s.cluster, s.jobId, s.node, s.step ?? "", s.time].join("|");
  return [...samples].sort((a, b) => key(a).localeCompare(key(b)));
}
