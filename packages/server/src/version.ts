import { createRequire } from "node:module";

// src/version.ts and dist/*.js both sit one folder below package.json.
const pkg = createRequire(import.meta.url)("../package.json") as { version: string };

/** The version of @jobsight/server, reported by health and the control-plane heartbeat. */
export const SERVER_VERSION: string = pkg.version;
