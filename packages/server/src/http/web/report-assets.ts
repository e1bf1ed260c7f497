import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { WebReportError } from "./web-report-error.js";

/** One file of the web report, held in memory (they are small and never change while running). */
export type ReportAsset = {
  body: Buffer;
  contentType: string;
  /** Strong validator for conditional requests. */
  etag: string;
};

/** The report's files by name, and the chart library's under `vendor/`. */
export type ReportAssets = ReadonlyMap<string, ReportAsset>;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

// uPlot ships prebuilt browser files; they are served as they are from the installed package.
const VENDOR_FILES = ["uPlot.iife.min.js", "uPlot.min.css"];

/**
 * The folder of the page files: `src/http/web/report-assets` when running from source,
 * `dist/report-assets` (copied there by tsup) when running the build, where every module is bundled
 * into `dist/`.
 */
export function defaultReportAssetsDir(): string {
  return fileURLToPath(new URL("./report-assets/", import.meta.url));
}

/**
 * Reads the report's page files (HTML, CSS, JS) from `dir` and uPlot's browser build from its
 * package, ready to serve.
 *
 * @throws {WebReportError} `REPORT_ASSETS_MISSING` when the folder or `index.html` is missing.
 * @example
 * ```ts
 * const assets = await loadReportAssets();
 * assets.get("index.html")?.contentType; // "text/html; charset=utf-8"
 * ```
 */
export async function loadReportAssets(dir = defaultReportAssetsDir()): Promise<ReportAssets> {
  const assets = new Map<string, ReportAsset>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new WebReportError("REPORT_ASSETS_MISSING", `The web report's files are missing: ${dir}`, {
      cause: error,
    });
  }
  for (const name of names.sort()) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType) assets.set(name, asset(await readFile(join(dir, name)), contentType));
  }
  if (!assets.has("index.html")) {
    throw new WebReportError("REPORT_ASSETS_MISSING", `The web report has no index.html in ${dir}`);
  }
  const require = createRequire(import.meta.url);
  for (const name of VENDOR_FILES) {
    const path = require.resolve(`uplot/dist/${name}`);
    const contentType = CONTENT_TYPES[extname(name)] ?? "application/octet-stream";
    assets.set(`vendor/${name}`, asset(await readFile(path), contentType));
  }
  return assets;
}

function asset(body: Buffer, contentType: string): ReportAsset {
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  return { body, contentType, etag };
}
