import { chromium } from "playwright-core";
import { it } from "vitest";
import { CHROMIUM_TEST_ARGS, freshUserDataDir } from "../../../../../test/browser/index.js";
import { accuracyReportWithPoints } from "./accuracy-fixture.js";
import { startReportServer, TOKENS } from "./report-server.js";

it("shots", async () => {
  const server = await startReportServer("web_tmp");
  server.accuracy.report = accuracyReportWithPoints();
  const profile = await freshUserDataDir();
  const ctx = await chromium.launchPersistentContext(profile.path, { executablePath: "/usr/bin/chromium", headless: true, args: [...CHROMIUM_TEST_ARGS], viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  page.on("console", (m) => console.log("console", m.type(), m.text()));
  await page.goto(`${server.base}/report/#token=${TOKENS.platform}`);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: "/tmp/shot-index.png", fullPage: true });
  for (const name of ["accuracy", "waste"]) {
    await page.goto(`${server.base}/report/${name}.html`);
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `/tmp/shot-${name}.png`, fullPage: true });
  }
  await page.goto(`${server.base}/report/jobs.html?id=7001&cluster=hpc1`);
  await page.waitForTimeout(1500);
  await page.locator(".claim").first().click();
  await page.screenshot({ path: "/tmp/shot-job.png", fullPage: true });
  await ctx.close();
  await profile.remove();
  await server.close();
}, 120_000);
