import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/kubernetes.ts", "src/cli.ts"],
  format: ["esm"],
  dts: { entry: ["src/index.ts", "src/kubernetes.ts"] },
  sourcemap: true,
  clean: true,
  target: "node20",
});
