#!/usr/bin/env node
// The `jobsight-server` bin. pnpm links bins when it installs, before `dist/` is built, so the link
// points at this committed file, which runs the build (or says how to make it).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/main.js", import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(`jobsight-server: ${fileURLToPath(main)} is not built yet; run 'pnpm build'\n`);
  process.exitCode = 1;
}
