// Bundles the page's code and the SDK's browser-safe entry (`@jobsight/sdk`, no Node built-ins)
// into one ES module, portal.js, next to index.html and portal.css.
//   node build.mjs [outdir]     (default: dist)
import { copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Builds the portal into `outdir`: `index.html`, `portal.css` and the bundle `portal.js`.
 * @param {string} outdir
 * @returns {Promise<string>} the folder written
 */
export async function buildPortal(outdir = join(here, "dist")) {
  await mkdir(outdir, { recursive: true });
  await build({
    entryPoints: [join(here, "src/main.ts")],
    outfile: join(outdir, "portal.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    sourcemap: true,
    logLevel: "warning",
  });
  await Promise.all(["index.html", "portal.css"].map((f) => copyFile(join(here, "src", f), join(outdir, f))));
  return outdir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = await buildPortal(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`portal built in ${outdir}`);
}
