import { defineConfig } from "vitest/config";

// Two projects: fast unit tests next to the code, and integration tests that share the real
// PostgreSQL and S3 servers started once per run by the global setup in test/services.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "scripts/**/*.test.ts"],
          environment: "node",
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["packages/*/test/integration/**/*.test.ts", "examples/*/test/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/services/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          pool: "forks",
        },
      },
      {
        test: {
          name: "slurm",
          include: ["packages/*/test/slurm/**/*.test.ts"],
          environment: "node",
          globalSetup: ["./test/services/global-setup.ts", "./test/slurm/global-setup.ts"],
          testTimeout: 240_000,
          hookTimeout: 300_000,
          pool: "forks",
          fileParallelism: false,
        },
      },
    ],
  },
});
