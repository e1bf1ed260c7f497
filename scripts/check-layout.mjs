#!/usr/bin/env node
// Layout rule run by `pnpm lint`: no source folder of a package holds more than 20 non-test
// source files (a folder that grows past that is two concepts; see CONTRIBUTING.md).
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

const MAX_FILES = 20;
const root = new URL("..", import.meta.url).pathname;

function folders(dir) {
  const entries = readdirSync(dir, { withFileTypes: true });
  const sources = entries.filter(
    (e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"),
  );
  const below = entries
    .filter((e) => e.isDirectory() && e.name !== "node_modules" && e.name !== "fixtures")
    .flatMap((e) => folders(join(dir, e.name)));
  return [{ dir, count: sources.length }, ...below];
}

const packages = readdirSync(join(root, "packages"), { withFileTypes: true }).filter((e) => e.isDirectory());
const crowded = packages
  .flatMap((p) => folders(join(root, "packages", p.name, "src")))
  .filter((f) => f.count > MAX_FILES);
for (const f of crowded) {
  console.error(
    `${relative(root, f.dir)}: ${f.count} source files (at most ${MAX_FILES}); split it by concept`,
  );
}
if (crowded.length > 0) process.exit(1);
console.log(`layout: every source folder holds at most ${MAX_FILES} source files`);
