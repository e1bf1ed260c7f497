import { defineConfig } from "tsup";

// Three entries: the browser-safe client (index), the test double (testing/index) and the CLI
// (cli/main), which alone may use Node built-ins and gets a shebang to run as the `jobsight` bin.
export default defineConfig([
  {
    entry: { index: "src/index.ts", "testing/index": "src/testing/index.ts" },
    format: ["esm"],
    dts: true,
    sourcemap: true,
    // Each build cleans only its own outputs: the two run at the same time in one dist folder.
    clean: ["*.js", "*.js.map", "*.d.ts", "testing"],
    target: "es2022",
    platform: "neutral",
    external: ["@jobsight/schemas", "yaml"],
  },
  {
    entry: { "cli/main": "src/cli/main.ts" },
    format: ["esm"],
    sourcemap: true,
    clean: ["cli"],
    target: "node20",
    platform: "node",
    removeNodeProtocol: false,
    banner: { js: "#!/usr/bin/env node" },
    external: ["@jobsight/schemas", "yaml"],
  },
]);
