import { defineConfig } from "vitest/config";

// Runs this package's tests alone, without the monorepo's PostgreSQL/S3 global setup, which
// none of them need: `npx vitest run --config packages/otel-bridge/test/vitest.config.ts`.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["src/**/*.test.ts", "test/integration/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
  },
});
