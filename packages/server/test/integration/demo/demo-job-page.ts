import { chromium } from "playwright-core";
import { CHROMIUM_TEST_ARGS, freshUserDataDir } from "../../../../../test/browser/index.js";
import { watchErrors } from "../web/page-probes.js";

/** What a look at one of the demo's job pages gave: the full-page PNG and the page's errors. */
export type JobPageShot = { png: Buffer; errors: string[]; findings: string[] };

/**
 * Opens a job page the demo printed (its token in the fragment) in headless Chromium, as the
 * README's picture shows it: 1280 px wide, the whole page, no claim clicked (a shaded evidence
 * window would hide the GPU lines lying at 0%).
 */
export async function shootJobPage(executablePath: string, url: string): Promise<JobPageShot> {
  const profile = await freshUserDataDir();
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath,
    headless: true,
    args: [...CHROMIUM_TEST_ARGS],
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    timezoneId: "Europe/Paris",
    locale: "en-GB",
  });
  try {
    const page = await context.newPage();
    const errors = watchErrors(page);
    await page.goto(url);
    await page.locator("[data-chart=gpuMemory] canvas").waitFor();
    const claims = page.locator(".claim");
    await claims.first().waitFor();
    const findings = await claims.allTextContents();
    const png = await page.screenshot({ fullPage: true });
    // Requests still in flight would show up as failures once the page closes.
    await page.waitForLoadState("networkidle");
    return { png, errors, findings };
  } finally {
    await context.close();
    await profile.remove();
  }
}
