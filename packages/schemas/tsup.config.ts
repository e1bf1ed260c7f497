import { defineConfig } from "tsup";

export default defineConfig({
  // `light` is the entry without TypeBox at run time (types and plain functions), for the collector.
  entry: ["src/index.ts", "src/light.ts"],
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
});
