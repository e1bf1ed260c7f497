// Import boundaries of the monorepo, checked by `pnpm lint` (docs/architecture.md draws them).
const SERVER = "^packages/server/src/";

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules that import each other cannot be understood, tested or moved one at a time.",
      from: {},
      to: { circular: true },
    },
    {
      name: "schemas-is-the-bottom",
      severity: "error",
      comment: "@jobsight/schemas holds the wire contracts and imports no other Jobsight package.",
      from: { path: "^packages/schemas/" },
      to: {
        path: [
          "^packages/(otel-bridge|collector|server|sdk)/",
          "@jobsight/(otel-bridge|collector|server|sdk)",
        ],
      },
    },
    {
      name: "otel-bridge-only-on-schemas",
      severity: "error",
      comment:
        "The bridge maps observations to OTLP and back; it knows the contracts and nothing above them.",
      from: { path: "^packages/otel-bridge/" },
      to: { path: ["^packages/(collector|server|sdk)/", "@jobsight/(collector|server|sdk)"] },
    },
    {
      name: "collector-never-imports-server-or-sdk",
      severity: "error",
      comment: "A collector runs on every node and talks to the server only over the wire.",
      from: { path: "^packages/collector/" },
      to: { path: ["^packages/(server|sdk)/", "@jobsight/(server|sdk)"] },
    },
    {
      name: "sdk-never-imports-server",
      severity: "error",
      comment: "The SDK is the server's client; it shares only the contracts in @jobsight/schemas.",
      from: { path: "^packages/sdk/" },
      to: { path: ["^packages/(server|collector|otel-bridge)/", "@jobsight/(server|collector|otel-bridge)"] },
    },
    {
      name: "server-never-imports-sdk",
      severity: "error",
      from: { path: "^packages/server/" },
      to: { path: ["^packages/(sdk|collector)/", "@jobsight/(sdk|collector)"] },
    },
    {
      name: "pg-only-in-the-data-plane",
      severity: "error",
      comment:
        "Only the data plane speaks SQL: every other room goes through its stores (SqlPool for the pool's type).",
      from: { path: "^packages/", pathNot: `${SERVER}data-plane/` },
      to: { path: "node_modules/(@types/)?pg(-copy-streams)?/" },
    },
    {
      name: "data-plane-below-intelligence-and-http",
      severity: "error",
      comment: "The data plane stores and serves data; it never calls the intelligence plane or a route.",
      from: { path: `${SERVER}data-plane/` },
      to: { path: `${SERVER}(http|intelligence)/` },
    },
    {
      name: "intelligence-below-http",
      severity: "error",
      comment: "The intelligence plane is called by routes and never reaches back into them.",
      from: { path: `${SERVER}intelligence/` },
      to: { path: `${SERVER}http/` },
    },
    {
      name: "platform-below-the-planes",
      severity: "error",
      comment: "Identity, licence, TLS and workers serve both planes and depend on neither.",
      from: { path: `${SERVER}platform/` },
      to: { path: `${SERVER}(http|intelligence)/` },
    },
    {
      name: "config-is-a-leaf",
      severity: "error",
      comment: "Configuration is parsed before anything runs; it names options, not the code that uses them.",
      from: { path: `${SERVER}config/` },
      to: { path: `${SERVER}(http|intelligence|data-plane)/` },
    },
    {
      name: "http-only-from-the-entry-points",
      severity: "error",
      comment: "Routes and plugins are assembled by app.ts; nothing below the HTTP room imports it.",
      from: { path: SERVER, pathNot: `${SERVER}(http/|app\\.ts$|main\\.ts$|index\\.ts$)` },
      to: { path: `${SERVER}http/` },
    },
    {
      name: "demo-is-not-the-product",
      severity: "error",
      comment: "The demo drives the server from outside; the server's own code never imports it.",
      from: { path: SERVER },
      to: { path: "^packages/server/demo/" },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.base.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: ["node_modules", "^packages/[^/]+/dist/"] },
    exclude: { path: "(\\.test\\.ts$|/test-support/|/fixtures/)" },
    moduleSystems: ["es6"],
  },
};
