import type { EvidenceRef } from "@jobsight/schemas";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CHROMIUM_TEST_ARGS,
  chromiumForTests,
  freshUserDataDir,
  type UserDataDir,
} from "../../../../../test/browser/index.js";
import type { FiringAlert } from "../../../src/data-plane/stores/alert-store.js";
import { type BrowserTab, watchErrors } from "./page-probes.js";
import { SHOWCASE } from "./report-fixture.js";
import { type ReportServer, startReportServer, TOKENS } from "./report-server.js";

const executablePath = await chromiumForTests();
const evidence: EvidenceRef[] = [
  {
    kind: "metric",
    source: "nvidia-smi",
    field: "utilization.gpu",
    node: "g01",
    text: "GPU 0 at most 1% over 30 min",
  },
];
const idle = (jobId: string, user: string): FiringAlert => ({
  cluster: SHOWCASE.cluster,
  jobId,
  user,
  rule: "gpus-idle",
  severity: "warning",
  message: `All GPUs of job ${jobId} stayed below 5% for 30 min: reserved and idle.`,
  evidence,
});

describe.skipIf(!executablePath)("alerts page in headless Chromium", () => {
  let server: ReportServer;
  let profile: UserDataDir;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const url = () => `${server.base}/report/alerts.html`;

  beforeAll(async () => {
    server = await startReportServer("web_report_alerts");
    const { alerts, alertActions } = server.app.storage;
    await alerts.fire([idle(SHOWCASE.jobId, "alice"), idle("9001", "bob")], new Date());
    await alerts.fire(
      [
        {
          ...idle("9002", "alice"),
          rule: "memory-near-limit",
          severity: "critical",
          message: "Memory is at 95% of its 16 GiB limit and rising: the limit in about 5 min.",
          projectedAt: new Date(Date.now() + 5 * 60_000).toISOString(),
        },
      ],
      new Date(),
    );
    const resolved = await alerts.fire([idle("9003", "alice")], new Date());
    expect(resolved).toBe(1);
    const [old] = (await alerts.list({ user: "alice", limit: 10 })).filter((a) => a.jobId === "9003");
    await alerts.resolve([old.id], new Date());
    const warnedAt = new Date(Date.now() - 45 * 60_000);
    for (const [jobId, user] of [
      [SHOWCASE.jobId, "alice"],
      ["9001", "bob"],
    ]) {
      await alertActions.record({
        cluster: SHOWCASE.cluster,
        jobId,
        user,
        kind: "cancel-job",
        rule: "gpus-idle",
        outcome: "dry-run",
        executor: "scancel",
        warnedAt: warnedAt.toISOString(),
        message: `Would cancel job ${jobId}: its GPUs stayed idle 30 min after the warning (dry run).`,
        evidence,
        at: new Date(),
        episode: warnedAt,
      });
    }
    profile = await freshUserDataDir();
    context = await chromium.launchPersistentContext(profile.path, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_TEST_ARGS],
      viewport: { width: 1280, height: 900 },
    });
  });

  afterAll(async () => {
    await context?.close();
    await profile?.remove();
    await server?.close();
  });

  afterEach(async () => {
    await page?.waitForLoadState("networkidle");
    await page?.close();
    expect(errors.join("\n"), "console errors").toBe("");
  });

  async function openWithToken(token: string, target = url()): Promise<Page> {
    page = await context.newPage();
    errors = watchErrors(page);
    await page.addInitScript(
      (t) => (globalThis as unknown as BrowserTab).sessionStorage.setItem("jobsight.token", t),
      token,
    );
    await page.goto(target);
    return page;
  }

  const liveJobs = () => page.locator("#alerts-live tbody tr a.job-link").allTextContents();
  const actionJobs = () => page.locator("#alert-actions tbody tr a.job-link").allTextContents();

  it("shows a researcher their own jobs' live alerts with the evidence, critical first, and their actions", async () => {
    await openWithToken(TOKENS.researcher);
    await page.locator("#alerts-live tbody tr").first().waitFor();
    await page.locator("#alert-actions tbody tr").first().waitFor();
    // bob's alert and the resolved one are not live alerts alice may see.
    expect(await liveJobs()).toEqual(["9002", SHOWCASE.jobId]);
    const critical = page.locator("#alerts-live tbody tr").first();
    expect(await critical.locator(".badge").textContent()).toBe("critical");
    expect(await critical.textContent()).toMatch(/Memory near its limit.*\(in [45] min/);
    const idleRow = page.locator("#alerts-live tbody tr", { hasText: SHOWCASE.jobId });
    expect(await idleRow.locator(".evidence li").textContent()).toBe(
      "metricGPU 0 at most 1% over 30 min (nvidia-smi · utilization.gpu · g01)",
    );
    expect(await idleRow.locator("a.job-link").getAttribute("href")).toBe(
      `jobs.html?id=${SHOWCASE.jobId}&cluster=${SHOWCASE.cluster}`,
    );
    expect(await actionJobs()).toEqual([SHOWCASE.jobId]);
    const action = page.locator("#alert-actions tbody tr").first();
    expect(await action.textContent()).toMatch(
      /dry run.*Would have cancelled the job.*\(45 min 00 s before\)/,
    );
    expect(await page.locator("header.top nav a.active").textContent()).toBe("Alerts");
  });

  it("shows the platform every job's alerts and actions, and is reached from the navigation", async () => {
    await openWithToken(TOKENS.platform, `${server.base}/report/`);
    // Leaving before the index's own requests end would abort them, which the error watch counts.
    await page.waitForLoadState("networkidle");
    await page.locator("header.top nav a", { hasText: "Alerts" }).click();
    await page.waitForURL(/alerts\.html$/);
    await page.locator("#alert-actions tbody tr").first().waitFor();
    expect((await liveJobs()).sort()).toEqual([SHOWCASE.jobId, "9001", "9002"].sort());
    expect((await actionJobs()).sort()).toEqual([SHOWCASE.jobId, "9001"].sort());
  });

  it("says there is nothing for a token of another cluster, and picks up a new alert at the next refresh", async () => {
    page = await context.newPage();
    errors = watchErrors(page);
    await page.clock.install();
    await page.addInitScript(
      (t) => (globalThis as unknown as BrowserTab).sessionStorage.setItem("jobsight.token", t),
      TOKENS.platformHpc2,
    );
    await page.goto(url());
    await page.locator("#no-alerts").waitFor();
    await page.locator("#no-actions").waitFor();
    await server.app.storage.alerts.fire([{ ...idle("h2-1", "carol"), cluster: "hpc2" }], new Date());
    await page.clock.runFor(31_000);
    await page.locator("#alerts-live a.job-link", { hasText: "h2-1" }).waitFor();
    expect(await page.locator("#alerts-updated").textContent()).toMatch(/refreshed every 30 s/);
  });
});
