import type { Page } from "playwright-core";

// The server's tsconfig has no DOM library: the few browser objects the tests touch are typed here.
// Only types cross into the functions run in the page, so each of those stays self-contained.
type Context2D = {
  getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
  drawImage(image: unknown, x: number, y: number): void;
};
type Canvas2D = {
  width: number;
  height: number;
  getContext(kind: "2d"): Context2D | null;
  closest(selector: string): { dataset: Record<string, string | undefined> } | null;
};
type DecodedImage = { src: string; naturalWidth: number; naturalHeight: number; decode(): Promise<void> };

/** The browser globals the tests use, for `(globalThis as unknown as BrowserTab)` inside the page. */
export type BrowserTab = {
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  navigator: { clipboard: { readText(): Promise<string> } };
  scrollTo(x: number, y: number): void;
  document: { createElement(tag: "canvas"): Canvas2D };
  Image: new () => DecodedImage;
};

/** A uPlot canvas as the page drew it. */
export type CanvasProbe = {
  chart: string;
  width: number;
  height: number;
  /** Pixels with any paint on them. */
  painted: number;
  /** Pixels within a small distance of each colour asked for, in order. */
  coloured: number[];
};

/**
 * Reads back the pixels of every uPlot canvas inside `[data-chart]` containers matching `selector`,
 * counting painted pixels and pixels of the given colours (`#rrggbb`), so a test can tell a drawn
 * line from an empty frame.
 */
export async function probeCharts(
  page: Page,
  selector: string,
  colours: string[] = [],
): Promise<CanvasProbe[]> {
  return page.$$eval(
    `${selector} canvas`,
    (canvases, hexes) => {
      const rgb = hexes.map((h) => [1, 3, 5].map((i) => Number.parseInt(h.slice(i, i + 2), 16)));
      return canvases.map((canvas) => {
        const c = canvas as unknown as Canvas2D;
        const ctx = c.getContext("2d");
        const probe = {
          chart: c.closest("[data-chart]")?.dataset.chart ?? "",
          width: c.width,
          height: c.height,
          painted: 0,
          coloured: rgb.map(() => 0),
        };
        if (!ctx || c.width === 0 || c.height === 0) return probe;
        const { data } = ctx.getImageData(0, 0, c.width, c.height);
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] === 0) continue;
          probe.painted++;
          rgb.forEach(([r, g, b], k) => {
            if (Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 40)
              probe.coloured[k]++;
          });
        }
        return probe;
      });
    },
    colours,
  );
}

/** Console errors and uncaught exceptions of a page, collected from the moment it is watched. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("requestfailed", (request) =>
    errors.push(`requestfailed: ${request.url()} ${request.failure()?.errorText}`),
  );
  return errors;
}

/** Width and height of a PNG, from its IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.subarray(1, 4).toString("latin1") !== "PNG") throw new Error("Not a PNG");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * How much of a screenshot is not its most common colour (the background), and how many distinct colours it has: decoded
 * by the browser itself, so no image library is needed.
 */
export async function screenshotStats(page: Page, png: Buffer): Promise<{ inked: number; colours: number }> {
  return page.evaluate(async (b64) => {
    const tab = globalThis as unknown as BrowserTab;
    const image = new tab.Image();
    image.src = `data:image/png;base64,${b64}`;
    await image.decode();
    const canvas = tab.document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const ctx = canvas.getContext("2d") as Context2D;
    ctx.drawImage(image, 0, 0);
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const counts = new Map<number, number>();
    for (let i = 0; i < data.length; i += 4) {
      const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const background = Math.max(...counts.values());
    return { inked: 1 - background / (data.length / 4), colours: counts.size };
  }, png.toString("base64"));
}
