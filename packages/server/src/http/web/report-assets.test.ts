import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadReportAssets } from "./report-assets.js";
import { WebReportError } from "./web-report-error.js";

describe("loadReportAssets", () => {
  it("ships every file the pages link to, load or import, and uPlot's browser build", async () => {
    const assets = await loadReportAssets();
    const text = (name: string) => assets.get(name)?.body.toString("utf8") ?? "";
    const pages = [...assets.keys()].filter((n) => n.endsWith(".html"));
    expect(pages.sort()).toEqual(["accuracy.html", "alerts.html", "index.html", "jobs.html", "waste.html"]);
    const missing: string[] = [];
    for (const page of pages) {
      for (const [, ref] of text(page).matchAll(/(?:src|href)="([^"#:]+)"/g)) {
        if (!assets.has(ref)) missing.push(`${page} → ${ref}`);
      }
    }
    for (const script of [...assets.keys()].filter((n) => n.endsWith(".js") && !n.startsWith("vendor/"))) {
      for (const [, ref] of text(script).matchAll(/from "\.\/([^"]+)"/g)) {
        if (!assets.has(ref)) missing.push(`${script} → ${ref}`);
      }
      // Pages link with relative hrefs: a page named in a script must exist too.
      for (const [, ref] of text(script).matchAll(/"([a-z-]+\.html)/g)) {
        if (!assets.has(ref)) missing.push(`${script} → ${ref}`);
      }
    }
    expect(missing).toEqual([]);
    expect(assets.get("vendor/uPlot.iife.min.js")?.body.toString("utf8")).toContain("uPlot");
    expect(assets.get("index.html")?.contentType).toBe("text/html; charset=utf-8");
  });

  it("never builds markup from strings, so API data cannot inject script", async () => {
    const assets = await loadReportAssets();
    for (const [name, asset] of assets) {
      if (!name.endsWith(".js") || name.startsWith("vendor/")) continue;
      expect(asset.body.toString("utf8"), name).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
      );
    }
  });

  it("says where it looked when the folder is missing or has no index.html", async () => {
    const empty = await mkdtemp(join(tmpdir(), "jobsight-report-"));
    try {
      await expect(loadReportAssets(join(empty, "nope"))).rejects.toMatchObject({
        code: "REPORT_ASSETS_MISSING",
      });
      await writeFile(join(empty, "a.css"), "body{}");
      const error = await loadReportAssets(empty).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(WebReportError);
      expect((error as Error).message).toContain(empty);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
